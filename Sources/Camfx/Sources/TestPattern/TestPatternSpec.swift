import CamfxCore

/// `--source testsrc`: the built-in test pattern (`TestPatternSource`), at the size
/// and rate asked for (640x480 at 30 fps by default).
public struct TestPatternSpec: LiveSourceSpec {
  /// The name it goes by on the command line.
  public static let name = "testsrc"

  public init() {}

  public static func parse(_ text: String) throws -> TestPatternSpec? { text == name ? TestPatternSpec() : nil }

  public var description: String { Self.name }

  public func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
    let geometry = request.size ?? TestPatternSource.defaultGeometry
    try geometry.validate()
    let rate = request.framesPerSecond ?? 30
    let source = TestPatternSource(
      geometry: geometry, frameRate: rate, live: request.live, firstFrame: request.firstFrame,
      poolCapacity: request.poolCapacity)
    return OpenedLiveSource(source: source, framesPerSecond: Double(rate))
  }
}
