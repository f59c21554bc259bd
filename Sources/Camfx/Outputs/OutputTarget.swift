import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// One kind of output an `-o` value names — a movie file, a network stream, a pipe, an
/// HLS playlist, or a kind of a program's own — checked before a byte is written, and
/// made into a `MovieOutput` when the recording starts. Adding a kind is one type that
/// conforms, plus one line in an `OutputRegistry`:
///
///     struct BucketTarget: OutputTarget {
///       let url: String
///       static func parse(_ name: String, _ options: OutputTargetOptions) throws -> BucketTarget? {
///         name.hasPrefix("s3://") ? BucketTarget(url: name) : nil
///       }
///       var displayName: String { url }
///       var identity: String { url }
///       func makeOutput(_ options: OutputMakingOptions) throws -> any MovieOutput { try BucketUpload(url) }
///     }
///     let outputs = OutputRegistry.builtin.registering(BucketTarget.self)
///     recording.outputs = try RecordingOutputPlan(names: ["s3://cams/front"], registry: outputs)
public protocol OutputTarget: Sendable {
  /// The output `name` names when it is of this kind; `nil` when it is not (the
  /// registry then tries the next kind).
  /// - Throws: when `name` is of this kind but cannot be written (a bad URL, a folder
  ///   that is not there), naming what is wrong.
  static func parse(_ name: String, _ options: OutputTargetOptions) throws -> Self?

  /// The name the user knows it by (a URL without its password or query).
  var displayName: String { get }

  /// What two spellings of one output share (a file's path with its folder's links
  /// followed; a URL): one recording, or two cameras, may not write it twice.
  var identity: String { get }

  /// The movie file it writes (a `--segment` pattern when segmented), if it is one:
  /// what `--segment`, `--fragment` and the figures of the file apply to. Default `nil`.
  var filePath: String? { get }

  /// Whether `--format` picks its container (a network or pipe output). Default `false`.
  var takesFormat: Bool { get }

  /// The output itself, made when the recording is built.
  func makeOutput(_ options: OutputMakingOptions) throws -> any MovieOutput
}

extension OutputTarget {
  public var filePath: String? { nil }
  public var takesFormat: Bool { false }
}

/// The options every `-o` value is read with.
public struct OutputTargetOptions: Sendable {
  /// `--format`, the container of the stream outputs.
  public var format: String?
  /// Segmenting of `.m3u8` outputs.
  public var hls: StreamDestination.HLSOptions
  /// Whether existing files and playlists may be replaced.
  public var overwrite: Bool
  /// The files are `--segment` patterns, named anew for each segment; else each file
  /// name's fields (`NamePattern`) are filled in with `startTime`.
  public var segmented: Bool
  public var startTime: time_t

  public init(
    format: String? = nil, hls: StreamDestination.HLSOptions = .init(), overwrite: Bool = false, segmented: Bool = false,
    startTime: time_t = time(nil)
  ) {
    self.format = format
    self.hls = hls
    self.overwrite = overwrite
    self.segmented = segmented
    self.startTime = startTime
  }
}

/// What outputs are made with.
public struct OutputMakingOptions: Sendable {
  /// How movie files are written.
  public var file: MovieFileOutput.Options
  /// Cut each movie file into segments (`--segment`), if set.
  public var segments: SegmentedMovieOutput.Options?

  public init(file: MovieFileOutput.Options = .init(), segments: SegmentedMovieOutput.Options? = nil) {
    self.file = file
    self.segments = segments
  }
}
