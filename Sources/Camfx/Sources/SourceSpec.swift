import CamfxCore
import CamfxFrames
import CamfxMedia

/// What `--source` names, parsed by a `SourceRegistry`: the built-in test pattern, a PNG
/// image, a movie played like a camera, a camera, or a kind of a program's own (any
/// `LiveSourceSpec`).
///
///     --source testsrc          the test pattern (the default when there is no camera)
///     --source photo.png        a PNG, repeated as frames
///     --source earlier.mkv      a movie's pictures on the wall clock, as a camera would give them
///     --source /dev/video0      a V4L2 camera
public struct SourceSpec: Sendable, Equatable, CustomStringConvertible {
  /// The source, of whichever kind it is.
  public let spec: any LiveSourceSpec

  public init(_ spec: any LiveSourceSpec) {
    self.spec = spec
  }

  /// Parses a `--source` value with camfx's own kinds (`SourceRegistry.builtin`).
  /// - Throws: `SourceError` for an empty value.
  public init(parsing text: String) throws {
    self = try SourceRegistry.builtin.parse(text)
  }

  public static let testPattern = SourceSpec(TestPatternSpec())
  public static func image(path: String) -> SourceSpec { SourceSpec(ImageSpec(path: path)) }
  public static func movie(path: String) -> SourceSpec { SourceSpec(MovieSourceSpec(path: path)) }
  public static func camera(device: String) -> SourceSpec { SourceSpec(CameraSpec(device: device)) }

  /// The name the test pattern goes by on the command line.
  public static let testPatternName = TestPatternSpec.name

  /// The extensions a movie `--source` has.
  public static let movieExtensions = MovieSourceSpec.extensions

  public var description: String { spec.description }
  public var hasOwnSize: Bool { spec.hasOwnSize }
  public var exclusiveDevice: String? { spec.exclusiveDevice }

  /// Two specs are one source when they are of one kind and say the same.
  public static func == (a: SourceSpec, b: SourceSpec) -> Bool {
    type(of: a.spec) == type(of: b.spec) && a.description == b.description
  }

  /// Opens the source as `request` asks.
  /// - Throws: `SourceError` for a rate outside 1...1000, else what the kind throws
  ///   (`SourceError`, a PNG's `PNGError`, a camera's `V4L2Error`).
  public func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
    try checkRate(of: request)
    return try spec.open(request)
  }

  /// The source's own compressed packets (`--video-codec copy`), or `nil` when it has none.
  public func openPackets(_ request: LiveSourceRequest) throws -> (any PacketSource)? {
    try checkRate(of: request)
    return try spec.openPackets(request)
  }

  private func checkRate(of request: LiveSourceRequest) throws {
    if let rate = request.framesPerSecond, !(1...1000).contains(rate) {
      throw SourceError(source: description, reason: "frame rate \(rate) must be in 1...1000")
    }
  }

  /// Opens the source with the common options alone.
  ///
  /// - Parameters:
  ///   - size: the frame size for the test pattern (default 640x480) or a camera.
  ///     A PNG has its own size: `size` must be `nil` or equal to it.
  ///   - frameRate: frames per second; timestamps advance by 1/`frameRate`.
  ///   - live: pace frames on the wall clock (recording) rather than as fast as asked.
  ///   - firstFrame: the test pattern's first frame number.
  ///   - poolCapacity: how many frames may be out of the source at once.
  /// - Throws: `SourceError`, the `PNGError` of an unreadable image, or a camera's `V4L2Error`.
  public func open(
    size: FrameGeometry? = nil, frameRate: Int = 30, live: Bool = false, firstFrame: Int64 = 0,
    poolCapacity: Int = 8
  ) throws -> any MediaSource<PCMBuffer> {
    try open(
      LiveSourceRequest(size: size, framesPerSecond: frameRate, live: live, poolCapacity: poolCapacity, firstFrame: firstFrame)
    ).source
  }
}
