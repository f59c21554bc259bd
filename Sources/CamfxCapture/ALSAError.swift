import CALSA

#if canImport(Glibc)
import Glibc
#endif

/// A failure of an ALSA call on a capture device, keeping alsa-lib's (negative errno)
/// code, the call and the device name, with a one-line `description` for users.
public struct ALSAError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// No such card, device or PCM name (`ENOENT`, `ENODEV`, `ENXIO`, unknown PCM).
    case noSuchDevice
    /// Another program has the device open (`EBUSY`).
    case deviceBusy
    /// The user may not open it (`EACCES`, `EPERM`); `group` grants access.
    case permissionDenied(group: String)
    /// The device went away while capturing.
    case disconnected
    /// Any other failure.
    case failed
  }

  public var kind: Kind
  /// The code alsa-lib returned (a negative errno), or 0.
  public var code: Int32
  /// The call that failed, e.g. `snd_pcm_open`.
  public var operation: String
  /// The ALSA device name, e.g. `hw:Loopback,1,0`.
  public var device: String
  public var detail: String?

  public init(_ kind: Kind, code: Int32 = 0, operation: String, device: String, detail: String? = nil) {
    self.kind = kind
    self.code = code
    self.operation = operation
    self.device = device
    self.detail = detail
  }

  /// Classifies an alsa-lib return code.
  public init(code: Int32, operation: String, device: String, detail: String? = nil) {
    let kind: Kind
    switch -code {
    case ENOENT, ENXIO: kind = .noSuchDevice
    case ENODEV: kind = operation == "snd_pcm_open" ? .noSuchDevice : .disconnected
    case EBUSY: kind = .deviceBusy
    case EACCES, EPERM: kind = .permissionDenied(group: "audio")
    default: kind = .failed
    }
    self.init(kind, code: code, operation: operation, device: device, detail: detail)
  }

  /// `snd_strerror(code)`.
  public var systemMessage: String { String(cString: snd_strerror(code)) }

  public var description: String {
    let suffix = detail.map { ": \($0)" } ?? ""
    switch kind {
    case .noSuchDevice:
      return "audio device \(device): no such device (list them with `camfx devices`)\(suffix)"
    case .deviceBusy:
      return "audio device \(device) is busy: another program is using it"
    case .permissionDenied(let group):
      return "audio device \(device): permission denied; add your user to the '\(group)' group "
        + "(sudo usermod -aG \(group) $USER) and log in again"
    case .disconnected:
      return "audio device \(device) was disconnected (\(operation): \(systemMessage))"
    case .failed where operation == "snd_pcm_open":
      // Users asked for a device, not for a call: say what could not be done, and why
      // in alsa-lib's words (hw:99,0, past the last possible card: "Invalid argument").
      return "cannot open sound device '\(device)': \(systemMessage)\(suffix)"
    case .failed:
      let why = code == 0 ? "" : ": \(systemMessage)"
      return "audio device \(device): \(operation) failed\(why)\(suffix)"
    }
  }
}
