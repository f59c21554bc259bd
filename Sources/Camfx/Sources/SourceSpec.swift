import CamfxCore
import CamfxFrames
import CamfxMedia

/// What `--source` names: the built-in test pattern, a PNG image, a movie played like a
/// camera, or a camera.
///
///     --source testsrc          the test pattern (the default)
///     --source photo.png        a PNG, repeated as frames
///     --source earlier.mkv      a movie's pictures on the wall clock, as a camera would give them
///     --source /dev/video0      a V4L2 camera
public enum SourceSpec: Sendable, Equatable, CustomStringConvertible {
  case testPattern
  case image(path: String)
  case movie(path: String)
  case camera(device: String)

  /// The extensions a movie `--source` has (anything else not a camera or testsrc is a PNG).
  public static let movieExtensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "nut", "avi", "ts"]

  /// The name the test pattern goes by on the command line.
  public static let testPatternName = "testsrc"

  /// Parses a `--source` value. `testsrc` is the test pattern, a name with a movie's
  /// extension a movie, anything else under `/dev/` a camera, and anything else a PNG
  /// path (checked when opened).
  /// - Throws: `SourceError` for an empty value.
  public init(parsing text: String) throws {
    if text.isEmpty { throw SourceError(source: text, reason: "empty source (expected testsrc, FILE.png or /dev/videoN)") }
    if text == Self.testPatternName {
      self = .testPattern
    } else if let dot = text.lastIndex(of: "."), Self.movieExtensions.contains(text[text.index(after: dot)...].lowercased()) {
      // Before the camera rule: a movie in /dev/shm is a movie.
      self = .movie(path: text)
    } else if text.hasPrefix("/dev/") && !text.lowercased().hasSuffix(".png") {
      self = .camera(device: text)
    } else {
      self = .image(path: text)
    }
  }

  public var description: String {
    switch self {
    case .testPattern: return Self.testPatternName
    case .image(let path), .movie(let path): return path
    case .camera(let device): return device
    }
  }

  /// Opens the source.
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
    guard frameRate > 0 && frameRate <= 1000 else {
      throw SourceError(source: description, reason: "frame rate \(frameRate) must be in 1...1000")
    }
    switch self {
    case .testPattern:
      let geometry = size ?? TestPatternSource.defaultGeometry
      try geometry.validate()
      return TestPatternSource(geometry: geometry, frameRate: frameRate, live: live, firstFrame: firstFrame, poolCapacity: poolCapacity)
    case .image(let path):
      let source = try PNGImageSource(path: path, frameRate: frameRate, live: live, poolCapacity: poolCapacity)
      if let size, size != source.geometry {
        throw SourceError(
          source: path,
          reason: "--size \(size) does not match the image's size \(source.geometry) (camfx does not scale; omit --size)")
      }
      return source
    case .movie(let path):
      // Its own pictures at its own rate, without its sound: a camera's stand-in.
      let reader = try MovieReader(path: path, poolCapacity: poolCapacity)
      if let size, size != reader.geometry {
        throw SourceError(
          source: path, reason: "--size \(size) does not match the movie's size \(reader.geometry) (a movie --source is not scaled; omit --size)")
      }
      return live ? PacedSource(reader) : reader
    case .camera(let device):
      return try Self.openCamera(device: device, size: size, frameRate: nil, poolCapacity: poolCapacity)
    }
  }
}
