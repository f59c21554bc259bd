import ArgumentParser
import Camfx
import CamfxMQTT
import CamfxMedia

/// `camfx record`'s event clips: a pre-roll of encoded packets, and clips that start
/// before their trigger (SIGUSR2, `POST /event` on the preview server).
struct EventOptions: ParsableArguments {
  @Option(name: .customLong("pre-record"), parsing: .unconditional, help: ArgumentHelp(
    "Record event clips, each starting this long before its trigger (SIGUSR2, or POST /event with --preview).",
    valueName: "time"))
  var preRecord: String?

  @Option(name: .customLong("post-record"), parsing: .unconditional, help: ArgumentHelp(
    "How long a clip goes on after its last trigger (default 10s).", valueName: "time"))
  var postRecord: String?

  @Option(name: .customLong("event-gap"), parsing: .unconditional, help: ArgumentHelp(
    "Keep a clip open this long after its last trigger, for another to extend it (default: --post-record).",
    valueName: "time"))
  var eventGap: String?

  @Option(name: .customLong("event-output"), help: ArgumentHelp(
    "The clips' names, with strftime fields (default event-%Y%m%d-%H%M%S.mp4).", valueName: "pattern"))
  var eventOutput: String?

  @Option(name: .customLong("pre-record-max"), parsing: .unconditional, help: ArgumentHelp(
    "The most memory the pre-roll's packets may take (default 64M).", valueName: "size"))
  var preRecordMax: String?

  @Option(name: .customLong("on-event-start"), help: ArgumentHelp(
    "A program to run when a clip starts (no shell). Its environment, the same in both hooks (seconds in the "
      + "recording): CAMFX_EVENT (start|end), CAMFX_EVENT_PATH, CAMFX_EVENT_SIDECAR (the clip's JSON, written "
      + "before the hook), CAMFX_EVENT_START (the clip's first picture), CAMFX_EVENT_TRIGGERED_AT (its first "
      + "trigger), CAMFX_EVENT_END (end hook only), CAMFX_EVENT_TRIGGER (signal|http|api|motion), "
      + "CAMFX_EVENT_SCORE (the peak motion score, end hook only).",
    valueName: "command"))
  var onEventStart: String?

  @Option(name: .customLong("on-event-end"), help: ArgumentHelp(
    "A program to run when a clip has ended (no shell; the CAMFX_EVENT_* variables of --on-event-start).",
    valueName: "command"))
  var onEventEnd: String?

  @Option(name: .customLong("hook-timeout"), parsing: .unconditional, help: ArgumentHelp(
    "How long a hook, with what it starts in the background, may run before it is stopped (default 30s).",
    valueName: "time"))
  var hookTimeout: String?

  @Option(name: .customLong("mqtt"), help: ArgumentHelp(
    "Publish each clip's start, update and end, and the state (retained), to an MQTT broker: "
      + "mqtt://[user:password@]host[:port]/topic (topic/events, topic/state, topic/available).",
    valueName: "url"))
  var mqtt: String?

  /// The event options, or nil when `--pre-record` is not given.
  func options(overwrite: Bool) throws -> EventRecorder.Options? {
    guard let preRecord else {
      let given = [
        ("--post-record", postRecord != nil), ("--event-gap", eventGap != nil), ("--event-output", eventOutput != nil),
        ("--pre-record-max", preRecordMax != nil), ("--on-event-start", onEventStart != nil),
        ("--on-event-end", onEventEnd != nil), ("--hook-timeout", hookTimeout != nil), ("--mqtt", mqtt != nil),
      ]
      if let (name, _) = given.first(where: \.1) {
        throw RecordingOptionError("\(name) sets event clips: add --pre-record TIME (e.g. --pre-record 5s)")
      }
      return nil
    }
    let pre = try RecordingLimits.parseDurationOrZero(preRecord, option: "--pre-record").seconds
    guard pre > 0, pre <= 600 else { throw RecordingOptionError("--pre-record must be more than 0 and at most 10m") }
    let post = try postRecord.map { try RecordingLimits.parseDurationOrZero($0, option: "--post-record").seconds } ?? 10
    let gap = try eventGap.map { try RecordingLimits.parseDurationOrZero($0, option: "--event-gap").seconds }
    if let gap, gap < post {
      throw RecordingOptionError(
        "--event-gap \(eventGap ?? "") is shorter than --post-record \(postRecord ?? "10s"): a clip stays open at least its post-roll")
    }
    let maximum = try preRecordMax.map { try RecordingLimits.parseByteCount($0, option: "--pre-record-max") } ?? 64_000_000
    guard maximum >= 1_000_000 else { throw RecordingOptionError("--pre-record-max must be at least 1M") }
    let pattern = eventOutput ?? "event-%Y%m%d-%H%M%S.mp4"
    _ = try MovieContainer(path: pattern)
    let timeout = try hookTimeout.map { try RecordingLimits.parseDurationOrZero($0, option: "--hook-timeout").seconds } ?? 30
    guard timeout > 0 else { throw RecordingOptionError("--hook-timeout must be more than 0") }
    var options = EventRecorder.Options(
      preRecord: pre, postRecord: post, gap: gap, pattern: pattern, maximumPreRecordBytes: Int(maximum),
      file: MovieFileOutput.Options(overwrite: overwrite))
    options.onStart = try onEventStart.map { try EventHook(command: $0, timeout: timeout, option: "--on-event-start") }
    options.onEnd = try onEventEnd.map { try EventHook(command: $0, timeout: timeout, option: "--on-event-end") }
    do {
      options.mqtt = try mqtt.map { try MQTTAddress($0) }
    } catch {
      throw RecordingOptionError("--mqtt \(error)")
    }
    return options
  }
}
