import CamfxCore
import CamfxMQTT
import CamfxMedia
import CamfxMotion
import Foundation
import Synchronization

/// Event clips that start before the event: the packet bus keeps a pre-roll of encoded
/// packets (`PacketBus.keepPackets`), and a trigger attaches a clip (`EventClipOutput`)
/// that starts at the keyframe at or before the pre-roll, and ends the post-roll after
/// the last trigger. Memory is bit rate × seconds, never pictures.
///
///     trigger at t ──▶ clip from the keyframe ≤ t − pre ... until t + duration + post
///     another trigger before the clip closes ──▶ the same clip goes on
///
/// - A trigger while a clip is open (before `end`, or within `gap` of its last
///   trigger's activity) extends it; otherwise it starts a new clip.
/// - Each clip is a crash-safe camfx file; when it is complete, a JSON sidecar beside it
///   says when it began and ended (in the recording, and by the wall clock), what
///   triggered it, and which files it wrote.
/// - Triggers come from any thread (`trigger`): a signal, the preview server's
///   `POST /event`, a Swift caller.
///
/// `@unchecked Sendable`: the open clip and the list of events are under `state`; the
/// watcher thread alone closes clips.
public final class EventRecorder: @unchecked Sendable {
  public struct Options: Sendable, Equatable {
    /// Seconds kept before a trigger.
    public var preRecord: Double
    /// Seconds recorded after the last trigger's activity ends.
    public var postRecord: Double
    /// Seconds a clip stays open after its last trigger's activity, for another trigger
    /// to extend it (at least `postRecord`); the clip records through it.
    public var gap: Double
    /// The clips' names: strftime fields (`events/%Y%m%d-%H%M%S.mp4`), local time of the
    /// trigger.
    public var pattern: String
    /// The most the pre-roll may hold in memory.
    public var maximumPreRecordBytes: Int
    public var file: MovieFileOutput.Options
    /// Programs run when a clip starts and when it has ended (`EventHook`).
    public var onStart: EventHook?
    public var onEnd: EventHook?
    /// Where each clip's start, update and end are published, with the current state
    /// retained (`EventMessages`); messages wait while the broker is away, at most
    /// `mqttQueueLimit` of them.
    public var mqtt: MQTTAddress?
    public var mqttQueueLimit = 1000

    public init(
      preRecord: Double, postRecord: Double, gap: Double? = nil, pattern: String,
      maximumPreRecordBytes: Int = 64_000_000, file: MovieFileOutput.Options = .init()
    ) {
      self.preRecord = preRecord
      self.postRecord = postRecord
      self.gap = max(gap ?? postRecord, postRecord)
      self.pattern = pattern
      self.maximumPreRecordBytes = maximumPreRecordBytes
      self.file = file
    }
  }

  /// One event, as its sidecar says it.
  public struct Event: Sendable, Codable, Equatable {
    /// The clip's path.
    public var path: String
    /// Where the clip's first and last picture lie in the recording (seconds from its
    /// start; the clip's own timestamps start at zero).
    public var start: Double
    public var end: Double
    /// When the first trigger came, in the recording and by the wall clock (seconds
    /// since 1970).
    public var triggeredAt: Double
    public var triggeredAtEpoch: Double
    /// What triggered it first (`signal`, `http`, `api`, `motion`), and how many
    /// triggers it took in all.
    public var trigger: String
    public var triggers: Int
    /// Video frames in the clip, and its bytes.
    public var frames: Int
    public var bytes: Int64
    public var files: [String]
    /// The error that cut the clip short, if one did.
    public var error: String?
    /// The motion detector's highest score during the clip (percent of the watched
    /// picture that changed), when it saw where it was, and the boxes around what changed
    /// then; nil when no score came (a trigger without the detector).
    public var score: Double?
    public var scoreAt: Double?
    public var boxes: [PixelRectangle]?
    /// True in the sidecar written when the clip starts, until the one written when it
    /// ends replaces it: a clip that keeps it was cut short (camfx was killed; `camfx
    /// repair` finishes the movie), and `start` is then where the clip began and `end`
    /// where it was to end.
    public var inProgress: Bool?

    enum CodingKeys: String, CodingKey {
      case path, start, end, triggeredAt = "triggered_at", triggeredAtEpoch = "triggered_at_epoch", trigger, triggers
      case frames, bytes, files, error, inProgress = "in_progress", score, scoreAt = "score_at", boxes
    }
  }

  public let options: Options
  private let bus: PacketBus
  private let clock: @Sendable () -> Double
  private let report: @Sendable (String) -> Void

  private struct Open {
    let clip: EventClipOutput
    let subscription: PacketSubscription
    let path: String
    /// Where the clip begins in the recording: its first kept packet.
    let startedFrom: Double
    var triggeredAt: Double
    var triggeredAtEpoch: Double
    var trigger: String
    var triggers: Int
    /// When the last trigger's activity ends (its time plus its duration); infinite
    /// while an activity of unknown length goes on (motion, until `release`).
    var activeUntil: Double
    /// The latest end of the triggers with a duration.
    var finiteUntil: Double
    var peak: (score: Double, at: Double, boxes: [PixelRectangle])?
    /// The frame at the peak, kept for the event's picture; when it was taken.
    var peakPicture: (frame: PixelBuffer, score: Double, at: Double)?

    func event(end: Double, inProgress: Bool?, error: String? = nil) -> Event {
      Event(
        path: path, start: clip.span.first ?? startedFrom, end: end, triggeredAt: triggeredAt,
        triggeredAtEpoch: triggeredAtEpoch, trigger: trigger, triggers: triggers, frames: clip.videoPacketsWritten,
        bytes: clip.bytesWritten, files: EventRecorder.files(of: path), error: error, score: peak?.score,
        scoreAt: peak?.at, boxes: peak?.boxes, inProgress: inProgress)
    }
  }

  private struct State {
    var names: SegmentNames
    var open: Open?
    /// Clips past their end, for the watcher to close.
    var closing: [Open] = []
    var events: [Event] = []
    var stopped = false
  }
  private let state: Mutex<State>
  /// What the watcher sleeps on: a trigger, a release, a job queued, the end.
  private let wake: WakeSignal
  /// The hooks still running (`EventHook.run`): `finish()` waits for them.
  private let hooks = DispatchGroup()
  /// Where a clip's start is said (its sidecar, synced to the disk; its message; its
  /// hook), in order with its updates, its pictures and its end: on the watcher's
  /// thread, off the thread that triggered it, which may be the tap stage (the motion
  /// detector's).
  private let jobs: EventJobs
  private let liveSource: Bool
  private var watcher: NamedThread?
  /// Writes each event's picture, when the recorder was given one (`pictureTap`).
  private let pictures: EventPictureTap
  private let messages: EventMessages?

  /// Sees the filtered frames, for the events' pictures: add it to the session's taps.
  public var pictureTap: any FrameTap { pictures }

  /// Starts keeping the pre-roll on `bus`, and the thread that closes clips.
  /// - Parameters:
  ///   - clock: where the recording is now (seconds; `MovieWriter.latestVideoSeconds`).
  ///   - report: told, one line each, when a clip starts, ends or fails.
  ///   - liveSource: true when the recording's source is live (a camera): a clip whose
  ///     disk falls its queue's length behind then ends alone instead of holding the
  ///     encoder up; from stored media, the recording waits for it, losing nothing.
  public init(
    bus: PacketBus, options: Options, clock: @escaping @Sendable () -> Double,
    report: @escaping @Sendable (String) -> Void = { _ in }, liveSource: Bool = true
  ) throws {
    self.bus = bus
    self.options = options
    self.liveSource = liveSource
    self.clock = clock
    self.report = report
    let wake = WakeSignal()
    self.wake = wake
    jobs = EventJobs(added: wake)
    pictures = EventPictureTap(jobs: jobs, report: report)
    let firstClip = try OutputFile.requireNamePattern(options.pattern, option: "--event-output")
    // The clips' container must hold the recording's streams: checked now, not at the
    // first event (MOV holds no VP9 or Opus).
    do {
      try MovieFileOutput(path: firstClip, options: options.file).prepare(streams: bus.streams)
    } catch {
      throw RecordingOptionError("--event-output '\(options.pattern)': \(error)")
    }
    state = Mutex(State(names: SegmentNames(pattern: options.pattern, overwrite: options.file.overwrite)))
    messages = try options.mqtt.map { try EventMessages(address: $0, queueLimit: options.mqttQueueLimit, report: report) }
    bus.keepPackets(seconds: options.preRecord, maximumBytes: options.maximumPreRecordBytes)
    do {
      watcher = try NamedThread("camfx.events") { [self] in watch() }
    } catch {
      messages?.close()
      throw error
    }
  }

  /// The events so far, closed ones first and the open one last.
  public var events: [Event] { state.withLock { $0.events } }

  /// Starts a clip, or extends the open one: it goes on `duration` (0: an instant;
  /// `.infinity`: until `release`) and then the post-roll.
  /// - Parameters:
  ///   - source: what triggered it, for the sidecar (`signal`, `http`, `motion` ...).
  ///   - time: when, in the recording (seconds); nil: now. The motion detector gives the
  ///     frame where motion began, which the encoder may not have finished yet.
  public func trigger(_ source: String, at time: Double? = nil, duration: Double = 0) {
    let now = time ?? clock()
    let until = now + max(0, duration)
    var started: Event? = nil
    var failure: String? = nil
    state.withLock { s in
      guard !s.stopped else { return }
      // A clip whose end has passed is over, even if the watcher has not closed it yet
      // (a movie read faster than real time): this trigger starts a new one.
      if let open = s.open, open.clip.isComplete || now >= open.clip.plannedEnd - 1e-9 {
        s.closing.append(open)
        s.open = nil
      }
      if var open = s.open {
        let activeUntil = max(open.activeUntil, until)
        // Checked and extended at once: a clip its worker has just completed is over.
        if open.clip.extend(to: activeUntil + options.gap) {
          open.activeUntil = activeUntil
          if until.isFinite { open.finiteUntil = max(open.finiteUntil, until) }
          open.triggers += 1
          s.open = open
          let event = open.event(end: expectedEnd(open, now: now), inProgress: true)
          // Under the lock, as the start's jobs: an update queued after a clip's end
          // would say it records on.
          jobs.add(notifying: false) { [self] in messages?.updated(event) }
          return
        }
        s.closing.append(open)
        s.open = nil
      }
      let path = s.names.next(at: Glibc.time(nil))
      do {
        let clip = try EventClipOutput(path: path, end: until + options.gap, options: options.file)
        // A clip that cannot be written (its disk is full) ends alone; the recording goes on.
        let subscription: PacketSubscription
        do {
          subscription = try bus.subscribe(
            clip, from: .at(now - options.preRecord), failureEndsRecording: false, waitsWhenFull: !liveSource)
        } catch {
          // The bus closed since `stopped` was read (the recording is finishing its
          // files; the recorder finishes after them): as late as a trigger after the end.
          if bus.hasFinished { return }
          throw error
        }
        let open = Open(
          clip: clip, subscription: subscription, path: path, startedFrom: subscription.replayedFromSeconds ?? now,
          triggeredAt: now, triggeredAtEpoch: Date().timeIntervalSince1970, trigger: source, triggers: 1,
          activeUntil: until, finiteUntil: until.isFinite ? until : now)
        s.open = open
        let event = open.event(end: expectedEnd(open, now: now), inProgress: true)
        started = event
        pictures.request(path: Self.picturePath(of: path))
        // Queued under the lock (so are updates): a clip closed the moment after (a stop)
        // finds its start's sidecar, message and hook queued before its end's, which
        // `close` runs first.
        jobs.add(notifying: false) { [self] in
          // A sidecar from the start, so that a clip cut short by a crash is still listed.
          var sidecarWritten = true
          do {
            try Self.writeSidecar(event)
          } catch {
            sidecarWritten = false
            report("event clip '\(event.path)': cannot write its sidecar: \(error)")
          }
          messages?.started(event)
          options.onStart?.run(
            Self.hookEnvironment("start", event, sidecarWritten: sidecarWritten), in: hooks, report: report)
        }
      } catch {
        failure = "event clip '\(path)': \(error)"
        // Listed with its error, so that the recording's end counts it as lost.
        s.events.append(
          Event(
            path: path, start: now, end: now, triggeredAt: now, triggeredAtEpoch: Date().timeIntervalSince1970,
            trigger: source, triggers: 1, frames: 0, bytes: 0, files: [], error: "\(error)", score: nil, scoreAt: nil,
            boxes: nil, inProgress: nil))
        s.events.sort { $0.start < $1.start }
      }
    }
    if let started { report("event (\(source)) at \(RecordingStatusLine.fixed(now, 2)) s: recording \(started.path)") }
    if let failure { report(failure) }
    wake.notify()
  }

  /// Where a clip is to end as things stand: its gap after its activity, or after now
  /// while an activity of unknown length goes on.
  private func expectedEnd(_ open: Open, now: Double) -> Double {
    // The clip records through its gap (at least the post-roll) after its activity.
    (open.activeUntil.isFinite ? open.activeUntil : max(now, open.finiteUntil)) + options.gap
  }

  /// Says that an activity of unknown length (`trigger(…, duration: .infinity)`) ended
  /// at `time` (nil: now): the clip goes on through its gap after then, or after the
  /// latest trigger with a duration.
  public func release(at time: Double? = nil) {
    let now = time ?? clock()
    state.withLock { s in
      guard var open = s.open, !open.activeUntil.isFinite else { return }
      open.activeUntil = max(open.finiteUntil, now)
      open.clip.cut(at: open.activeUntil + options.gap)
      s.open = open
      let updated = open.event(end: expectedEnd(open, now: now), inProgress: true)
      jobs.add(notifying: false) { [self] in messages?.updated(updated) }
    }
    wake.notify()
  }

  /// Tells the open clip the motion detector's score at `time`; a new peak is kept,
  /// with its boxes, for the sidecar, and `picture` (called then, on this thread, with
  /// the buffer of the picture it replaces, to copy into) for the event's PNG when it is
  /// 25% above the one kept or 0.25 s later: copies stay few while the score climbs,
  /// and the picture is at most 0.25 s from the peak.
  public func observe(score: Double, boxes: [PixelRectangle], at time: Double, picture: (PixelBuffer?) -> PixelBuffer?) {
    state.withLock { s in
      guard var open = s.open, open.peak.map({ score > $0.score }) ?? true else { return }
      open.peak = (score, time, boxes)
      if let kept = open.peakPicture, score < kept.score * 1.25, time - kept.at < 0.25 {
        s.open = open
        return
      }
      // The clip's earlier peak picture is its own (only `close` reads it, once the clip
      // has left the state): the new one is drawn into it, with no new buffer to fault in.
      let kept = open.peakPicture?.frame
      open.peakPicture = nil
      if let frame = picture(kept) { open.peakPicture = (frame, score, time) }
      s.open = open
    }
  }

  /// Ends the open clip at the post-roll from now (`POST /event` with `stop`).
  public func stopEvent() {
    let now = clock()
    state.withLock { s in
      guard var open = s.open else { return }
      open.activeUntil = min(open.activeUntil, now)
      open.finiteUntil = min(open.finiteUntil, now)
      open.clip.cut(at: now + options.postRecord)
      s.open = open
      let updated = open.event(end: now + options.postRecord, inProgress: true)
      jobs.add(notifying: false) { [self] in messages?.updated(updated) }
    }
    wake.notify()
  }

  /// Closes the open clip with what it holds (the recording ends), and stops watching.
  public func finish() {
    let left = state.withLock { s -> [Open]? in
      guard !s.stopped else { return nil }
      s.stopped = true
      defer {
        s.closing = []
        s.open = nil
      }
      return s.closing + (s.open.map { [$0] } ?? [])
    }
    guard let left else { return }
    wake.notify()
    watcher?.join()
    watcher = nil
    for open in left { close(open) }
    jobs.runAll()
    // The end hooks of the clips just closed have only begun; each ends within its
    // timeout.
    hooks.wait()
    messages?.close()
  }

  // MARK: The watcher

  private func watch() {
    var droppedForBytes = 0
    while true {
      let dropped = bus.figures.keptGOPsDroppedForBytes
      if dropped > droppedForBytes {
        if droppedForBytes == 0 {
          report(
            "warning: the pre-roll passed its memory bound (--pre-record-max "
              + "\(RecordingStatusLine.fixed(Double(options.maximumPreRecordBytes) / 1e6, 1)) MB): "
              + "clips start later than --pre-record; give a larger bound or a lower bit rate")
        }
        droppedForBytes = dropped
      }
      wake.wait(timeoutNanoseconds: 50_000_000) { !jobs.isEmpty || state.withLock { $0.stopped } }
      jobs.runAll()
      let (done, stopped) = state.withLock { s -> ([Open], Bool) in
        if s.stopped { return ([], true) }
        var done = s.closing
        s.closing = []
        // Taken out under the lock, so that a trigger meanwhile starts a new clip and
        // never hands this one over a second time.
        if let open = s.open, open.clip.isComplete || open.subscription.hasEnded {
          done.append(open)
          s.open = nil
        }
        return (done, false)
      }
      if stopped { return }
      for open in done { close(open) }
    }
  }

  /// Detaches a clip (its worker finishes the file) and writes its sidecar, and its
  /// picture at the motion's peak when there was one.
  private func close(_ open: Open) {
    let error = bus.unsubscribe(open.subscription)
    let event = open.event(end: open.clip.span.end, inProgress: nil, error: error.map { "\($0)" })
    state.withLock { s in
      s.events.append(event)
      s.events.sort { $0.start < $1.start }
    }
    // After the trigger's picture, the start's sidecar and message, which may still
    // be queued.
    jobs.runAll()
    if let peak = open.peakPicture {
      // Written before the sidecar, the hook and the message that say the clip ended,
      // and after the trigger's picture it replaces.
      pictures.write(peak.frame, to: Self.picturePath(of: open.path))
    }
    let sidecarWritten: Bool
    do {
      try Self.writeSidecar(event)
      sidecarWritten = true
    } catch {
      report("event clip '\(open.path)': cannot write its sidecar: \(error)")
      sidecarWritten = false
    }
    // The clip went to the archive when its file was finished; its picture and its
    // last sidecar follow it.
    if let archive = options.file.archive?.archive {
      let picture = Self.picturePath(of: open.path)
      if access(picture, F_OK) == 0 { archive.add(picture) }
      if sidecarWritten { archive.add(Self.sidecarPath(of: open.path)) }
    }
    messages?.ended(event)
    options.onEnd?.run(Self.hookEnvironment("end", event, sidecarWritten: sidecarWritten), in: hooks, report: report)
    report(
      "event clip \(open.path): \(RecordingStatusLine.fixed(event.start, 2))–\(RecordingStatusLine.fixed(event.end, 2)) s, "
        + "\(event.frames) frames" + (event.score.map { ", peak score \(RecordingStatusLine.fixed($0, 2))" } ?? "")
        + (event.error.map { "; \($0)" } ?? ""))
  }

  /// What a hook is told of `event`, the same in both hooks (`kind`: `start` or `end`):
  ///
  ///     CAMFX_EVENT            start | end
  ///     CAMFX_EVENT_PATH       the clip
  ///     CAMFX_EVENT_SIDECAR    its JSON sidecar, as written just before the hook (at the
  ///                            start with "in_progress": true); unset if it could not be
  ///     CAMFX_EVENT_START      where the clip begins in the recording (s): its first picture
  ///     CAMFX_EVENT_TRIGGERED_AT  when its first trigger came, in the recording (s)
  ///     CAMFX_EVENT_END        where it ends in the recording (s); the end hook only
  ///     CAMFX_EVENT_TRIGGER    what triggered it: signal, http, api, motion
  ///     CAMFX_EVENT_SCORE      the motion detector's peak score; empty at the start, and
  ///                            without the detector
  static func hookEnvironment(_ kind: String, _ event: Event, sidecarWritten: Bool) -> [String: String] {
    var environment = [
      "CAMFX_EVENT": kind, "CAMFX_EVENT_PATH": event.path, "CAMFX_EVENT_START": RecordingStatusLine.fixed(event.start, 3),
      "CAMFX_EVENT_TRIGGERED_AT": RecordingStatusLine.fixed(event.triggeredAt, 3), "CAMFX_EVENT_TRIGGER": event.trigger,
      "CAMFX_EVENT_SCORE": kind == "end" ? event.score.map { RecordingStatusLine.fixed($0, 2) } ?? "" : "",
    ]
    if sidecarWritten { environment["CAMFX_EVENT_SIDECAR"] = sidecarPath(of: event.path) }
    if kind == "end" { environment["CAMFX_EVENT_END"] = RecordingStatusLine.fixed(event.end, 3) }
    return environment
  }

  /// The files an event writes: the clip, its picture and its sidecar.
  static func files(of clip: String) -> [String] { [clip, picturePath(of: clip), sidecarPath(of: clip)] }

  /// `clip.mp4` → `clip.png`: the event's picture, the first frame after its trigger.
  public static func picturePath(of clip: String) -> String {
    (clip as NSString).deletingPathExtension + ".png"
  }

  /// `clip.mp4` → `clip.json`.
  public static func sidecarPath(of clip: String) -> String {
    (clip as NSString).deletingPathExtension + ".json"
  }

  static func writeSidecar(_ event: Event) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try OutputFile(path: sidecarPath(of: event.path), overwrite: true).write(contents: Array(try encoder.encode(event)))
  }
}
