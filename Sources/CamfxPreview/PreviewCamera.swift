/// One camera a `PreviewServer` shows: a recording's filtered frames (its tap), its
/// figures and what `POST .../event` does for it. A mosaic is one more camera.
///
///     let front = try PreviewCamera(name: "front", tap: frontTap) { frontState.json() }
///
/// The name is part of the camera's paths (`/cameras/front/snapshot.png`) and of the
/// page, so it is kept to what needs no escaping in either: letters, digits, `-`, `_`
/// and `.` (not only dots, which a browser would take for `.` and `..` path steps).
public struct PreviewCamera: Sendable {
  public let name: String
  public let tap: PreviewTap
  /// The figures its `state` path serves, as JSON.
  public let state: @Sendable () -> [UInt8]
  /// What `POST .../event` does: start (or extend) an event for the seconds given (nil
  /// for an instant), or stop the open one; nil when the recording takes no events.
  public let events: (@Sendable (EventRequest) -> Void)?
  /// Adds its figures to `/metrics` (nil: it has none there).
  public let metrics: (@Sendable (inout MetricFamilies) -> Void)?
  /// Its live view (`live/ws`), or nil when it has none (the page shows MJPEG).
  public let live: LiveView?
  /// The folder its event clips go to, for `events` (nil: it makes none, or their
  /// folders change with the date).
  public let eventFolder: String?

  /// - Throws: `PreviewError` for a name that is empty, too long or has other characters.
  public init(
    name: String, tap: PreviewTap, events: (@Sendable (EventRequest) -> Void)? = nil,
    metrics: (@Sendable (inout MetricFamilies) -> Void)? = nil, live: LiveView? = nil, eventFolder: String? = nil,
    state: @escaping @Sendable () -> [UInt8]
  ) throws(PreviewError) {
    guard Self.isValid(name: name) else {
      throw PreviewError(
        "invalid preview camera name '\(name)' (1 to 64 letters, digits, '-', '_' or '.', not only dots)")
    }
    self.name = name
    self.tap = tap
    self.events = events
    self.metrics = metrics
    self.live = live
    self.eventFolder = eventFolder
    self.state = state
  }

  static func isValid(name: String) -> Bool {
    guard (1...64).contains(name.utf8.count), name.contains(where: { $0 != "." }) else { return false }
    return name.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
        return true
      default:
        return false
      }
    }
  }
}
