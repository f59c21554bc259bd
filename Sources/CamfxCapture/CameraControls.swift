/// A camera opened only to read and set its controls (`camfx controls`), which works
/// while another process streams from it.
public final class CameraControls {
  let device: V4L2Device
  public let path: String
  public let driver: String
  public let card: String

  /// - Throws: `V4L2Error` (`.noSuchDevice`, `.permissionDenied`, `.notCaptureDevice`, …).
  public init(path: String) throws {
    self.path = path
    device = try V4L2Device(path: path)
    let caps = try device.queryCapabilities()
    driver = caps.driver
    card = caps.card
  }

  /// Every control with its current value.
  public func list() throws -> [CameraControl] { try device.queryControls() }

  /// Sets controls in order, each checked against its range first.
  /// - Throws: `V4L2Error(.invalidArgument)` naming an unknown control or a bad value.
  public func set(_ assignments: [ControlAssignment]) throws { try device.setControls(assignments) }
}
