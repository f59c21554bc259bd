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
  public enum Target: Sendable, Equatable {
    case file(String)
    case stream(StreamDestination)

    /// The name the user knows it by (a URL without its password or query).
    public var displayName: String {
      switch self {
      case .file(let path): path
      case .stream(let d): d.displayName
      }
    }
  }

  public let targets: [Target]

  /// The movie files among the targets.
  public var files: [String] {
    targets.compactMap { if case .file(let p) = $0 { p } else { nil } }
  }

  /// - Parameters:
  ///   - names: the `-o` values, in order.
  ///   - format: `--format`, the container of the stream outputs.
  ///   - hls: segmenting of `.m3u8` outputs.
  ///   - overwrite: whether existing files and playlists may be replaced.
  ///   - segmented: the files are `--segment` patterns, named anew for each segment;
  ///     else each file name's fields (`NamePattern`) are filled in with `startTime`.
  /// - Throws: `MediaSettingsError`, `OutputFileError` or `RecordingOptionError` naming
  ///   the bad value.
  public init(
    names: [String], format: String? = nil, hls: StreamDestination.HLSOptions = .init(), overwrite: Bool = false,
    segmented: Bool = false, startTime: time_t = time(nil)
  ) throws {
    var targets: [Target] = []
    let names = try names.map { name in
      if StreamDestination.isStream(name) { return name }
      try NamePattern.check(name, option: "-o")
      return segmented ? name : NamePattern.expand(name, at: startTime)
    }
    for name in names {
      if StreamDestination.isStream(name) {
        let destination = try StreamDestination(parsing: name, format: format, hls: hls)
        if destination.kind == .hls { try OutputFile(path: name, overwrite: overwrite).requireWritableDirectory() }
        targets.append(.stream(destination))
      } else {
        try OutputFile(path: name, overwrite: overwrite).requireWritableDirectory()
        _ = try MovieContainer(path: name)
        targets.append(.file(name))
      }
    }
    // One file by any spelling (./a.mp4, dir/../a.mp4) is one output.
    var seen: [String: String] = [:]
    for (name, target) in zip(names, targets) {
      let isNetworkOrPipe = if case .stream(let d) = target { d.kind != .hls } else { false }
      let key = isNetworkOrPipe ? name : OutputFile.canonicalPath(of: name)
      if let first = seen[key] {
        throw RecordingOptionError(first == name ? "-o \(name) is given twice" : "-o \(first) and -o \(name) are the same file")
      }
      seen[key] = name
    }
    if format != nil, !targets.contains(where: { if case .stream(let d) = $0 { d.kind != .hls } else { false } }) {
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
    try targets.map { target -> any MovieOutput in
      switch target {
      case .file(let path):
        if let segments { return try SegmentedMovieOutput(pattern: path, options: segments) }
        return try MovieFileOutput(path: path, options: file)
      case .stream(let destination):
        return try LiveStreamOutput(destination: destination)
      }
    }
  }
}
