import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

/// One still (`camfx snapshot`): the first frame a source gives, through a filter chain.
///
///     let still = try Snapshot.take(.testPattern, chain: FilterRegistry.builtin.makeChain(["mirror"]))
///     try PNGFile.write(still, to: "still.png", alpha: false)
public enum Snapshot {
  /// - Parameters:
  ///   - spec: the source; a camera is opened at `size` with `camera`'s settings.
  ///   - frame: which test-pattern frame (its counter shows it).
  ///   - report: told what the camera adjusted, one line each.
  /// - Throws: what opening the source or configuring the chain throws, or `SourceError`
  ///   when the source gives no frame.
  public static func take(
    _ spec: SourceSpec, size: FrameGeometry? = nil, camera: CameraSettings = CameraSettings(), frame: Int64 = 0,
    chain: FilterChain, report: @escaping @Sendable (String) -> Void = { _ in }
  ) throws -> PixelBuffer {
    var chain = chain
    // A camera picks its own rate; the others need none for one frame.
    let source = try spec.open(
      LiveSourceRequest(size: size, live: false, poolCapacity: 1, firstFrame: frame, camera: camera, report: report)
    ).source
    try chain.configure(input: source.geometry)
    // A source delivers BGRA until asked for yuv420p: the first frame is the still.
    var first: PixelBuffer?
    while first == nil, let sample = try source.nextSample() {
      if case .video(.bgra(let buffer)) = sample { first = buffer }
    }
    guard let sourceFrame = first else { throw SourceError(source: spec.description, reason: "delivered no frame") }
    // Nothing else holds the chain's frames, so a pool of one never makes it wait.
    guard let picture = chain.process(sourceFrame, using: chain.makeBuffers(capacity: 1)) else {
      preconditionFailure("the chain's own pool was empty")
    }
    return picture
  }
}
