#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 video capture device and everything it offers, like `AVCaptureDevice`:
/// its driver, card name, bus, and `formats` (every pixel format, size and rate).
public struct CameraDevice: Sendable, Hashable {
  /// The device node, e.g. `/dev/video0`.
  public var path: String
  /// The kernel driver, e.g. `uvcvideo`, `vivid`.
  public var driver: String
  /// The device's name, e.g. `HD Pro Webcam C920`.
  public var card: String
  /// Where it is attached, e.g. `usb-0000:00:14.0-1`.
  public var busInfo: String
  /// Every format at every size, in the driver's order.
  public var formats: [CameraFormat]

  /// Opens `path` and reads what it offers.
  /// - Throws: `V4L2Error`; `.notCaptureDevice` for nodes that are not streaming
  ///   video-capture devices (metadata nodes, encoders, radios).
  public init(path: String) throws {
    let device = try V4L2Device(path: path)
    let caps = try device.queryCapabilities()
    guard caps.isStreamingCapture else {
      throw V4L2Error(
        .notCaptureDevice, operation: "VIDIOC_QUERYCAP", device: path,
        detail: "driver \(caps.driver), '\(caps.card)' has no streaming video capture")
    }
    self.path = path
    self.driver = caps.driver
    self.card = caps.card
    self.busInfo = caps.busInfo
    self.formats = try device.enumerateFormats()
  }

  /// The capture devices among `/dev/video*`, in node-number order. Nodes that cannot
  /// be opened (busy, no permission) are reported in `problems` instead.
  public static func discover(in directory: String = "/dev") -> (cameras: [CameraDevice], problems: [V4L2Error]) {
    var cameras: [CameraDevice] = []
    var problems: [V4L2Error] = []
    for path in videoNodes(in: directory) {
      do {
        cameras.append(try CameraDevice(path: path))
      } catch let error as V4L2Error {
        if error.kind != .notCaptureDevice { problems.append(error) }
      } catch {}
    }
    return (cameras, problems)
  }

  /// `/dev/video0`, `/dev/video1`, … sorted by number.
  public static func videoNodes(in directory: String = "/dev") -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var numbers: [Int] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name.hasPrefix("video"), let n = Int(name.dropFirst(5)) { numbers.append(n) }
    }
    return numbers.sorted().map { "\(directory)/video\($0)" }
  }
}
