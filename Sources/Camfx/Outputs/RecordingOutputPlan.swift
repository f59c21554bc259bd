import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// The outputs of one recording, from its `-o` values: movie files (one `MovieFileOutput`
/// each, or a `SegmentedMovieOutput` with `--segment`) and live streams (network URLs,
/// `-` for standard output, `.m3u8` playlists: a `LiveStreamOutput` each). Every output
/// gets the same packets from one encode.
///
///     -o rec.mp4 -o rtmp://127.0.0.1/live/cam -o hls/index.m3u8
///
/// Everything that can be checked before a byte is written is checked by `init`.
public struct RecordingOutputPlan: Sendable {
  /// The outputs, each of its kind (`MovieFileTarget`, `StreamTarget`, or one of a
  /// program's own), in the order named.
  public let targets: [any OutputTarget]

  /// The movie files among the targets.
  public var files: [String] { targets.compactMap(\.filePath) }

  /// - Parameters:
  ///   - names: the `-o` values, in order.
  ///   - format: `--format`, the container of the stream outputs.
  ///   - hls: segmenting of `.m3u8` outputs.
  ///   - overwrite: whether existing files and playlists may be replaced.
  ///   - segmented: the files are `--segment` patterns, named anew for each segment;
  ///     else each file name's fields (`NamePattern`) are filled in with `startTime`.
  ///   - registry: the kinds of output the names may be.
  /// - Throws: `MediaSettingsError`, `OutputFileError` or `RecordingOptionError` naming
  ///   the bad value.
  public init(
    names: [String], format: String? = nil, hls: StreamDestination.HLSOptions = .init(), overwrite: Bool = false,
    segmented: Bool = false, startTime: time_t = time(nil), registry: OutputRegistry = .builtin
  ) throws {
    let options = OutputTargetOptions(
      format: format, hls: hls, overwrite: overwrite, segmented: segmented, startTime: startTime)
    let targets = try names.map { try registry.parse($0, options) }
    // One file by any spelling (./a.mp4, dir/../a.mp4) is one output.
    var seen: [String: String] = [:]
    for (name, target) in zip(names, targets) {
      if let first = seen[target.identity] {
        throw RecordingOptionError(first == name ? "-o \(name) is given twice" : "-o \(first) and -o \(name) are the same file")
      }
      seen[target.identity] = name
    }
    if format != nil, !targets.contains(where: \.takesFormat) {
      throw RecordingOptionError(
        "--format picks the container of a network or pipe output (-o URL or -o -); a file's extension picks its own")
    }
    if hls.segmentSeconds <= 0 { throw RecordingOptionError("--hls-time must be more than 0") }
    if hls.listSize < 1 { throw RecordingOptionError("--hls-list-size must be at least 1") }
    self.targets = targets
  }

  /// Refuses a file output that is the movie being read.
  /// - Parameter what: how the command names the input, for the message (`--input`,
  ///   `item 'a.mp4'`, `--music`).
  public func requireDistinct(fromInput input: String, what: String = "--input") throws {
    for path in files { try OutputFile(path: path, overwrite: true).requireDistinct(from: input, what: what) }
  }

  /// Makes the outputs, in the order of the targets.
  /// - Parameters:
  ///   - file: how movie files are written.
  ///   - segments: cut each movie file into segments (`--segment`), if set.
  public func makeOutputs(file: MovieFileOutput.Options, segments: SegmentedMovieOutput.Options?) throws -> [any MovieOutput] {
    let options = OutputMakingOptions(file: file, segments: segments)
    return try targets.map { try $0.makeOutput(options) }
  }
}
