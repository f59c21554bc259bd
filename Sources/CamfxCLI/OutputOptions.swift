import ArgumentParser
import Camfx
import CamfxMedia

/// Where `camfx record` writes: `-o`, repeatable, and the options of stream outputs.
struct OutputOptions: ParsableArguments {
  @Option(name: [.short, .long], help: ArgumentHelp(
    "Where to write; repeat for several outputs of one encode: a movie file (.mp4, .mov or .mkv; strftime fields such as %Y%m%d take the start's local time), a URL "
      + "(rtmp://, rtmps:// as FLV; srt://, udp:// as MPEG-TS), - for standard output (MPEG-TS), or an HLS "
      + "playlist DIR/NAME.m3u8 (default camfx-YYYYmmdd-HHMMSS.mp4 here).",
    valueName: "out.mp4|URL|-|NAME.m3u8"))
  var output: [String] = []

  @Option(help: ArgumentHelp(
    "Container of the URL and - outputs, a libavformat muxer name (mpegts, flv, matroska, nut, ...).",
    valueName: "name"))
  var format: String?

  @Option(name: .customLong("hls-time"), parsing: .unconditional, help: ArgumentHelp(
    "Length of an HLS segment (default 2s; each starts on a keyframe).", valueName: "time"))
  var hlsTime: String?

  @Option(name: .customLong("hls-list-size"), parsing: .unconditional, help: ArgumentHelp(
    "Segments an HLS playlist lists (default 6); older ones are deleted.", valueName: "n"))
  var hlsListSize: Int = 6

  @Option(name: .customLong("hls-segment-type"), help: ArgumentHelp(
    "ts (MPEG-TS, the default) or fmp4 (fragmented MP4) HLS segments.", valueName: "type"))
  var hlsSegmentType: String = "ts"

  /// The outputs, checked; `names` are the `-o` values or the default file, patterns
  /// of `--segment`'s files when `segmented`.
  func plan(names: [String], overwrite: Bool, segmented: Bool = false) throws -> RecordingOutputPlan {
    guard let segmentType = StreamDestination.HLSOptions.SegmentType(rawValue: hlsSegmentType.lowercased()) else {
      throw RecordingOptionError("invalid --hls-segment-type '\(hlsSegmentType)' (expected ts or fmp4)")
    }
    let hls = StreamDestination.HLSOptions(
      segmentSeconds: try hlsTime.map { try RecordingLimits.parseDuration($0, option: "--hls-time").seconds } ?? 2,
      listSize: hlsListSize, segmentType: segmentType)
    return try RecordingOutputPlan(names: names, format: format, hls: hls, overwrite: overwrite, segmented: segmented)
  }
}
