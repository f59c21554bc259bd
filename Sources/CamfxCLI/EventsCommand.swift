import ArgumentParser
import Camfx
import Foundation

/// `camfx events DIR`: the event clips `record --pre-record` wrote, from their sidecars;
/// filtered by time, and pruned with the limits of loop recording.
///
///     camfx events events/ --since 2h
///     camfx events events/ --keep 100 --max-total 20G
struct EventsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "events",
    abstract: "List, filter and prune event clips.",
    discussion: """
      Lists the clips in DIR from their JSON sidecars, oldest first: when each was triggered \
      (local time), how long it is, what triggered it, its frames and its file. --keep, \
      --max-total and --min-free delete the oldest clips (movie, picture and sidecar) first.
      """)

  @Argument(help: ArgumentHelp("The folder of the clips (--event-output's).", valueName: "dir"))
  var directory: String

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Only events triggered since: a time ago (30m, 2h) or a local time (2026-11-26 10:00[:00]).", valueName: "time"))
  var since: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Only events triggered before: as --since.", valueName: "time"))
  var until: String?

  @Option(name: .customLong("min-score"), parsing: .unconditional, help: ArgumentHelp(
    "Only motion events whose peak score reached this (percent of the picture that changed).", valueName: "percent"))
  var minScore: String?

  @Flag(help: "Print the events as JSON.")
  var json = false

  @Option(parsing: .unconditional, help: ArgumentHelp("Delete the oldest events beyond N.", valueName: "n"))
  var keep: Int?

  @Option(name: .customLong("max-total"), parsing: .unconditional, help: ArgumentHelp(
    "Delete the oldest events while all of them take more than this (20G, 500M).", valueName: "size"))
  var maxTotal: String?

  @Option(name: .customLong("min-free"), parsing: .unconditional, help: ArgumentHelp(
    "Delete the oldest events while the disk has less free than this.", valueName: "size"))
  var minFree: String?

  func run() throws {
    // Every value is checked before anything is deleted.
    if let keep, keep < 0 { throw RecordingOptionError("--keep must be 0 or more") }
    let maximumTotalBytes = try maxTotal.map { try RecordingLimits.parseByteCount($0, option: "--max-total") }
    let minimumFreeBytes = try minFree.map { try RecordingLimits.parseByteCount($0, option: "--min-free") }
    let now = Date().timeIntervalSince1970
    let sinceTime = try since.map { try Self.time($0, now: now, option: "--since") }
    let untilTime = try until.map { try Self.time($0, now: now, option: "--until") }
    let minimumScore = try minScore.map { try MotionDetector.Options.percent($0, option: "--min-score", range: 0...100) }
    var index = try EventIndex(directory: directory)
    let deleted = index.prune(keep: keep, maximumTotalBytes: maximumTotalBytes, minimumFreeBytes: minimumFreeBytes)
    for event in deleted { printToStandardError("camfx: deleted \(event.path)") }
    let listed = index.events(since: sinceTime, until: untilTime, minimumScore: minimumScore)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(listed), as: UTF8.self))
      return
    }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    for event in listed {
      let when = formatter.string(from: Date(timeIntervalSince1970: event.triggeredAtEpoch))
      print(
        "\(when)  "
          + (event.inProgress == true
            ? "(recording, or cut short: camfx repair finishes it)  \(event.trigger)  "
            : "\(RecordingStatusLine.fixed(event.end - event.start, 1)) s  \(event.trigger)  \(event.frames) frames  "
              + (event.score.map { "score \(RecordingStatusLine.fixed($0, 2))  " } ?? ""))
          + event.path)
    }
  }

  /// `30m`, `2h` (ago) or `2026-11-26 10:00[:00]` (local) as seconds since 1970.
  static func time(_ text: String, now: Double, option: String) throws -> Double {
    if let ago = try? RecordingLimits.parseDuration(text, option: option) { return now - ago.seconds }
    let formatter = DateFormatter()
    for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
      formatter.dateFormat = format
      if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
    }
    if text.hasPrefix("-") {
      throw RecordingOptionError(
        "invalid \(option) '\(text)': a time ago has no sign (\(text.dropFirst()) means that long ago), or give a local time such as 2026-11-26 10:00")
    }
    throw RecordingOptionError("invalid \(option) '\(text)' (expected a time ago such as 2h, or a local time such as 2026-11-26 10:00)")
  }
}
