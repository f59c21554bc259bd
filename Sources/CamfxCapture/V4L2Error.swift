#if canImport(Glibc)
import Glibc
#endif

/// A failure talking to a V4L2 camera, keeping the `errno`, the ioctl (or call) that
/// failed and the device path, with a one-line `description` a user can act on.
///
///     V4L2Error(.deviceBusy, code: EBUSY, operation: "VIDIOC_STREAMON", device: "/dev/video0")
///     // camera /dev/video0 is busy: another program is using it (VIDIOC_STREAMON)
public struct V4L2Error: Error, Sendable, CustomStringConvertible {
  /// What went wrong, in the terms a user meets it.
  public enum Kind: Sendable, Equatable {
    /// The device node does not exist (`ENOENT`, `ENXIO`).
    case noSuchDevice
    /// The user may not open the node (`EACCES`, `EPERM`); `group` grants access.
    case permissionDenied(group: String)
    /// Another process is streaming from the device (`EBUSY`).
    case deviceBusy
    /// The node opened, but it is not a streaming video-capture device.
    case notCaptureDevice
    /// The requested format, size or rate is not offered; `offered` lists what is.
    case unsupportedFormat(offered: String)
    /// The device went away while streaming (`ENODEV`, or `EIO` from `VIDIOC_DQBUF`).
    case disconnected
    /// A bad argument from the user (unknown control name, bad control value).
    case invalidArgument
    /// The stream cannot start because the USB bus has no isochronous bandwidth left
    /// for it (`ENOSPC` from `VIDIOC_STREAMON`): the most common failure with two or
    /// more USB cameras. `detail` names the size, rate and format asked for.
    case noUSBBandwidth(compressed: Bool)
    /// Any other failure of the named operation.
    case failed
  }

  public var kind: Kind
  /// The `errno` value the call left, or 0 when the failure was not an errno.
  public var code: Int32
  /// The ioctl or call that failed, e.g. `"VIDIOC_DQBUF"`, `"open"`.
  public var operation: String
  /// The device path, e.g. `/dev/video0`.
  public var device: String
  /// Extra text for the message (what was requested, what the driver reported).
  public var detail: String?

  public init(_ kind: Kind, code: Int32 = 0, operation: String, device: String, detail: String? = nil) {
    self.kind = kind
    self.code = code
    self.operation = operation
    self.device = device
    self.detail = detail
  }

  /// Classifies an `errno` left by `operation` on `device`.
  public init(errno code: Int32, operation: String, device: String, detail: String? = nil) {
    let kind: Kind
    switch code {
    case ENOENT, ENXIO: kind = .noSuchDevice
    case EACCES, EPERM: kind = .permissionDenied(group: V4L2Error.accessGroup(of: device))
    case EBUSY: kind = .deviceBusy
    case ENODEV: kind = .disconnected
    case EIO where operation == "VIDIOC_DQBUF" || operation == "poll": kind = .disconnected
    default: kind = .failed
    }
    self.init(kind, code: code, operation: operation, device: device, detail: detail)
  }

  /// The group that owns the device node (`video` on Debian), or `video` if unknown.
  static func accessGroup(of path: String) -> String {
    var st = stat()
    guard stat(path, &st) == 0, st.st_gid != 0, let group = getgrgid(st.st_gid),
      let name = group.pointee.gr_name
    else { return "video" }
    return String(cString: name)
  }

  /// `strerror(code)`, e.g. "Device or resource busy".
  public var systemMessage: String { code == 0 ? "" : String(cString: strerror(code)) }

  public var description: String {
    let suffix = detail.map { ": \($0)" } ?? ""
    switch kind {
    case .noSuchDevice:
      return "camera \(device): no such device\(suffix)"
    case .permissionDenied(let group):
      return "camera \(device): permission denied; add your user to the '\(group)' group "
        + "(sudo usermod -aG \(group) $USER) and log in again"
    case .deviceBusy:
      return "camera \(device) is busy: another program is using it (\(operation))"
    case .notCaptureDevice:
      return "\(device) is not a video capture device\(suffix)"
    case .unsupportedFormat(let offered):
      return "camera \(device) cannot deliver \(detail ?? "that format"); it offers: \(offered)"
    case .disconnected:
      return "camera \(device) was disconnected (\(operation): \(systemMessage))\(detail.map { "; \($0)" } ?? "")"
    case .invalidArgument:
      return "camera \(device)\(suffix)"
    case .noUSBBandwidth(let compressed):
      // A compressed stream already asks for little: only less of it, or another bus, helps.
      let format =
        compressed
        ? "" : "--input-format mjpeg (compressed, far less bandwidth than raw YUYV), "
      return "camera \(device) cannot start: its USB bus has no bandwidth left for \(detail ?? "this format") "
        + "(every camera and device on the bus shares it). What helps: \(format)a smaller --size or --fps, or a port "
        + "on another USB controller (lsusb -t shows which devices share one)"
    case .failed:
      let why = code == 0 ? "" : ": \(systemMessage) (errno \(code))"
      return "camera \(device): \(operation) failed\(why)\(suffix)"
    }
  }
}
