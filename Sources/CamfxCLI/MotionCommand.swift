import ArgumentParser
import Camfx
import Foundation

/// `camfx motion FILE`: the motion detector replayed over a movie, to tune it before a
/// camera relies on it.
///
///     camfx motion door.mp4 --motion-area 1% --csv scores.csv --plot scores.png
struct MotionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "motion",
    abstract: "Run the motion detector over a movie: the events it would make, and its score per frame.",
    discussion: """
      Prints one line per event: when motion began and ended, its peak score (percent of \
      the watched picture that changed) and when. With --pre-record, also the span the \
      event clip would have (it starts at the keyframe at or before the pre-roll). The \
      options are record's --motion-* options; --csv writes the score of every frame and \
      --plot draws it against the threshold.
      """)

  @Argument(help: ArgumentHelp("The movie to read.", valueName: "file"))
  var file: String

  @OptionGroup(title: "Motion detection")
  var motion: MotionOptions

  @Option(name: .customLong("pre-record"), parsing: .unconditional, help: ArgumentHelp(
    "Print the clip each event would make with this pre-roll.", valueName: "time"))
  var preRecord: String?

  @Option(name: .customLong("post-record"), parsing: .unconditional, help: ArgumentHelp(
    "The clips' post-roll (default 10s).", valueName: "time"))
  var postRecord: String?

  @Option(name: .customLong("event-gap"), parsing: .unconditional, help: ArgumentHelp(
    "Motion less than this apart is one event (default: --post-record).", valueName: "time"))
  var eventGap: String?

  @Option(help: ArgumentHelp("Write every frame's score as CSV (one row per frame).", valueName: "file.csv"))
  var csv: String?

  @Option(help: ArgumentHelp("Draw the score against the threshold over time as a PNG.", valueName: "file.png"))
  var plot: String?

  @Option(name: .customLong("plot-size"), help: ArgumentHelp("The plot's size (default 960x240).", valueName: "WxH"))
  var plotSize: String?

  @Flag(help: "Print the events as JSON.")
  var json = false

  func run() throws {
    let options = try motion.options()
    let pre = try preRecord.map { try RecordingLimits.parseDurationOrZero($0, option: "--pre-record").seconds }
    let post = try postRecord.map { try RecordingLimits.parseDurationOrZero($0, option: "--post-record").seconds } ?? 10
    let gap = try eventGap.map { try RecordingLimits.parseDurationOrZero($0, option: "--event-gap").seconds } ?? post
    if gap < post {
      throw RecordingOptionError(
        "--event-gap \(eventGap ?? "") is shorter than --post-record \(postRecord ?? "10s"): a clip stays open at least its post-roll")
    }
    let size = try plotSize.map { try FrameGeometry(parsing: $0, option: "--plot-size") } ?? FrameGeometry(width: 960, height: 240)
    guard (64...8192).contains(size.width), (32...4096).contains(size.height) else {
      throw RecordingOptionError("--plot-size \(plotSize ?? "") must be from 64x32 to 8192x4096")
    }
    if let csv { try requireWritable(csv) }
    if let plot { try requireWritable(plot) }

    let analysis = try MotionAnalysis(path: file, options: options, gap: gap)
    let duration = analysis.frames.last.map { $0.time } ?? 0
    if let csv {
      let output = try OutputFile(path: csv, overwrite: true)
      try output.write(contents: Array(analysis.csv.utf8))
    }
    if let plot {
      try MotionPlot.write(analysis.frames, width: size.width, height: size.height, duration: duration, to: plot)
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(analysis.events), as: UTF8.self))
    } else {
      for (number, event) in analysis.events.enumerated() {
        var line =
          "event \(number + 1): \(RecordingStatusLine.fixed(event.start, 2))–\(RecordingStatusLine.fixed(event.end, 2)) s, "
          + "peak score \(RecordingStatusLine.fixed(event.score, 2))% at \(RecordingStatusLine.fixed(event.scoreAt, 2)) s"
        if !(event.zone == "frame") { line += " in zone \(event.zone)" }
        if let pre {
          line += "; clip from the keyframe at or before \(RecordingStatusLine.fixed(max(0, event.start - pre), 2)) s "
            + "to \(RecordingStatusLine.fixed(event.end + gap, 2)) s"
        }
        print(line)
      }
    }
    let lightSwitches = analysis.frames.filter(\.lightSwitch).count
    RecordCommand.printToStderr(
      "camfx: \(analysis.frames.count) frames (\(analysis.width)x\(analysis.height)), \(analysis.events.count) event(s)"
        + (lightSwitches > 0 ? ", \(lightSwitches) light switch(es) learned again" : "")
        + "; noise \(RecordingStatusLine.fixed(analysis.frames.last?.noise ?? 0, 2)) levels, "
        + "\(RecordingStatusLine.fixed(analysis.meanMicroseconds, 0)) µs a frame\n")
  }

  /// A file can be made at `path` (its folder exists): checked before the movie is read.
  private func requireWritable(_ path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder), isFolder.boolValue
    else {
      throw RecordingOptionError("cannot write '\(path)': its folder '\(folder)' does not exist")
    }
  }
}
