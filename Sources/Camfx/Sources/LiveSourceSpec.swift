import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

/// One kind of live source a `--source` value names — the test pattern, a PNG, a movie
/// played like a camera, a V4L2 camera, or a kind of a program's own — parsed, and
/// opened as a recording reads it. Adding a kind is one type that conforms, plus one
/// line in a `SourceRegistry`:
///
///     struct NetworkCamera: LiveSourceSpec {
///       let url: String
///       static func parse(_ text: String) throws -> NetworkCamera? {
///         text.hasPrefix("rtsp://") ? NetworkCamera(url: text) : nil
///       }
///       var description: String { url }
///       func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
///         let source = try MyRTSPReader(url: url, poolCapacity: request.poolCapacity)
///         return OpenedLiveSource(source: source, framesPerSecond: 25)
///       }
///     }
///     let sources = SourceRegistry.builtin.registering(NetworkCamera.self)
///     let spec = try sources.parse("rtsp://10.0.0.7/stream1")
///
/// Everything particular to a kind (a camera's controls, notes and reconnecting) is in
/// its `open`, not in the pipeline that reads it.
public protocol LiveSourceSpec: Sendable, CustomStringConvertible {
  /// The source `text` names when it is of this kind; `nil` when it is not (the
  /// registry then tries the next kind).
  /// - Throws: `SourceError` when `text` is of this kind but cannot be one.
  static func parse(_ text: String) throws -> Self?

  /// Opens the source as `request` asks.
  func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource

  /// The source's own compressed packets, for `--video-codec copy`; `nil` (the
  /// default) when it has none.
  func openPackets(_ request: LiveSourceRequest) throws -> (any PacketSource)?

  /// Its pictures have a size of their own (a PNG's, a movie's), so `--size` is not
  /// for it. Default `false`.
  var hasOwnSize: Bool { get }

  /// The device only one reader can hold (a camera's, links followed), so two
  /// recordings of it are refused before either opens it; `nil` (the default) when it
  /// can be read twice.
  var exclusiveDevice: String? { get }
}

extension LiveSourceSpec {
  public func openPackets(_ request: LiveSourceRequest) throws -> (any PacketSource)? { nil }
  public var hasOwnSize: Bool { false }
  public var exclusiveDevice: String? { nil }
}

/// What a recording (or a still) asks of a live source when it opens it.
public struct LiveSourceRequest: Sendable {
  /// The size asked for (`--size`): testsrc's, or a camera's to negotiate; a source with
  /// its own size refuses another. `nil`: the source's default.
  public var size: FrameGeometry?
  /// `--fps` when given: a camera must then offer exactly that rate; `nil` lets a
  /// camera pick the nearest to 30 and gives other sources 30.
  public var framesPerSecond: Int?
  /// Frames paced on the wall clock (a recording), or as fast as asked (a still).
  public var live: Bool
  /// How many frames may be out of the source at once.
  public var poolCapacity: Int
  /// The test pattern's first frame number.
  public var firstFrame: Int64
  /// The camera options (`--input-format`, `--preset`, `--skip`, `--control`): the
  /// camera kind's, ignored by the others.
  public var camera: CameraSettings
  /// Seconds a source that goes away (a camera unplugged) is waited for; 0: not at all.
  public var reconnectTimeout: Double
  /// Told, one line each, what a device adjusted and when it goes and comes back.
  public var report: @Sendable (String) -> Void

  public init(
    size: FrameGeometry? = nil, framesPerSecond: Int? = nil, live: Bool = true, poolCapacity: Int = 8,
    firstFrame: Int64 = 0, camera: CameraSettings = CameraSettings(), reconnectTimeout: Double = 0,
    report: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.size = size
    self.framesPerSecond = framesPerSecond
    self.live = live
    self.poolCapacity = poolCapacity
    self.firstFrame = firstFrame
    self.camera = camera
    self.reconnectTimeout = reconnectTimeout
    self.report = report
  }
}

/// A live source opened, and the rate the encoder is told.
public struct OpenedLiveSource {
  public var source: any MediaSource<PCMBuffer>
  public var framesPerSecond: Double

  public init(source: any MediaSource<PCMBuffer>, framesPerSecond: Double) {
    self.source = source
    self.framesPerSecond = framesPerSecond
  }

  /// `source` at its own rate, or `fallback` frames per second when it states none.
  public init(source: any MediaSource<PCMBuffer>, orRate fallback: Int) {
    self.source = source
    framesPerSecond = source.frameDuration.map { Double($0.timescale) / Double($0.value) } ?? Double(fallback)
  }
}
