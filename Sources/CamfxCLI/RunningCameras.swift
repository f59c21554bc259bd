import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The cameras `camfx run` records, as a set that changes while it runs: cameras are
/// started together (opened first, then started in one moment, their files stamped
/// with one creation time), finished one by one or all at once, and each one's end is
/// said as it comes, with its summary. A camera that is neither started nor finished
/// records on untouched.
///
/// Used from the run's thread only; the cameras' own threads just wake it (`wake`).
final class RunningCameras {
  /// Woken whenever a camera has ended.
  let wake: WakeSignal
  /// SIGUSR2: every camera that makes event clips starts one.
  let eventTrigger: SignalTrigger
  /// The cameras recording, in the file's order.
  private(set) var recordings: [CameraRecording] = []
  /// How many cameras could not record, or lost something (their exit status).
  private(set) var failures: [String] = []
  /// Where SIGINT and SIGTERM go: every camera recording.
  let stopTarget: RecordingStopTarget
  /// Where the cameras' finished files go, one archive per folder and store.
  let archives = RunningArchives()
  private let erasesStatus: Bool
  /// One progress log per camera, for a service's journal (stderr is not a terminal).
  private var progressLogs: [ObjectIdentifier: RecordingProgressLog] = [:]
  private var meters: [ObjectIdentifier: (frames: Int, elapsed: Double)] = [:]

  /// - Parameter erasesStatus: a status line is drawn, and erased before each message.
  init(stopTarget: RecordingStopTarget, erasesStatus: Bool, wake: WakeSignal, eventTrigger: SignalTrigger) {
    self.stopTarget = stopTarget
    self.erasesStatus = erasesStatus
    self.wake = wake
    self.eventTrigger = eventTrigger
  }

  /// Prints `text` on a line of its own (`camfx: ` first), even while a status line is drawn.
  func say(_ text: String) {
    RecordCommand.printToStderr((erasesStatus ? "\r\u{1B}[2K" : "") + text + "\n")
  }

  /// What a camera's pipeline says, prefixed with its name.
  func reporter(for name: String) -> @Sendable (String) -> Void {
    let erase = erasesStatus
    return { RecordCommand.printToStderr((erase ? "\r\u{1B}[2K" : "") + "camfx: \(name): \($0)\n") }
  }

  /// Opens every camera, then starts them all in one moment, their files stamped with
  /// the instant they were started together. A stop signal that came while they were
  /// being opened cancels them all.
  /// - Parameter prepare: given each camera once it is open, before it starts (what
  ///   joins its pipeline, a preview, joins it here).
  /// - Returns: the cameras that could not be opened, each said as a failure.
  @discardableResult
  ///   - source: what a camera records instead of its own source (the mosaic's picture).
  ///   - sound: what a camera hears instead of its own sound, given the cameras opened
  ///     so far (those recording already, then those before it in `cameras`).
  func start(
    _ cameras: [RunFile.Camera], source: (RunFile.Camera) -> (any MediaSource<PCMBuffer>)? = { _ in nil },
    sound: (RunFile.Camera, [CameraRecording]) -> RecordingPipeline.Configuration.Sound? = { _, _ in nil },
    prepare: (CameraRecording) -> Void = { _ in }
  ) -> [String] {
    let instant = Date().timeIntervalSince1970
    var opened: [CameraRecording] = []
    var failed: [String] = []
    for camera in cameras {
      do {
        opened.append(
          try CameraRecording(
            camera, creationTime: instant, source: source(camera), sound: sound(camera, recordings + opened),
            eventTrigger: eventTrigger, archive: archives.archive(for: camera.setup.archive, report: reporter(for: camera.name)),
            report: reporter(for: camera.name)))
      } catch {
        say("camfx: \(camera.name): error: \(error)")
        failures.append(camera.name)
        failed.append(camera.name)
      }
    }
    var attached: [CameraRecording] = []
    for recording in opened {
      guard stopTarget.attach(recording.job) else { break }
      attached.append(recording)
    }
    guard attached.count == opened.count else {
      for recording in opened {
        stopTarget.detach(recording.job)
        recording.job.cancel()
      }
      return failed
    }
    for recording in opened {
      if recording.camera.command.verbose { say("camfx: \(recording.camera.name): video path: \(recording.job.videoPath)") }
      prepare(recording)
    }
    let wake = wake
    for recording in opened { recording.start { wake.notify() } }
    recordings += opened
    return failed
  }

  /// Puts the recordings in the file's order (the status line's), after a reload.
  func arrange(as names: [String]) {
    recordings.sort { a, b in
      (names.firstIndex(of: a.camera.name) ?? .max) < (names.firstIndex(of: b.camera.name) ?? .max)
    }
  }

  /// Asks the named cameras to finish cleanly and waits until their files are finished.
  func finish(_ names: Set<String>) {
    let leaving = recordings.filter { names.contains($0.camera.name) }
    for recording in leaving { recording.job.stop() }
    while !leaving.allSatisfy({ $0.result != nil }) {
      wake.wait(timeoutNanoseconds: 100_000_000) { leaving.allSatisfy { $0.result != nil } }
    }
    collectEnded()
  }

  /// Says the end of every camera that has ended, and takes it out of the set.
  func collectEnded() {
    // One look at each camera: one that ends between a second look and the first would
    // leave the set without its end said.
    let ended = recordings.filter { $0.result != nil }
    guard !ended.isEmpty else { return }
    recordings.removeAll { recording in ended.contains { $0 === recording } }
    for recording in ended {
      stopTarget.detach(recording.job)
      sayEnd(of: recording)
    }
  }

  /// A camera's summary lines, its `stats-json`, and its failure, if any.
  private func sayEnd(of recording: CameraRecording) {
    let name = recording.camera.name
    meters[ObjectIdentifier(recording)] = nil
    progressLogs[ObjectIdentifier(recording)] = nil
    recording.stills?.waitUntilWritten()
    switch recording.result {
    case .success(let summary):
      if let soundError = summary.soundError { say("camfx: \(name): warning: \(soundError); the video went on") }
      let outcome = recording.camera.setup.outcome(of: summary, outputs: recording.job.outputReports)
      for line in outcome.lines { say("\(name): \(line)") }
      if let statsFile = recording.camera.setup.statsFile {
        do {
          try RecordCommand.writeStats(summary, to: statsFile)
        } catch {
          say("camfx: \(name): error: stats-json '\(statsFile.path)' not written: \(error)")
          failures.append(name)
        }
      }
      if let failure = outcome.failure {
        say("camfx: \(name): error: \(failure)")
        failures.append(name)
      }
    case .failure(let error):
      say("camfx: \(name): error: \(error)")
      failures.append(name)
    case nil:
      break
    }
  }

  /// The status line of every camera: its fps over the last interval, frames and drops.
  ///
  ///     00:05.2  front 30.0 fps 156 frames 0 dropped | back 30.0 fps 150 frames 0 dropped
  func statusLine(elapsed: Double) -> String {
    var parts: [String] = []
    for recording in recordings {
      guard let figures = recording.figures else {
        parts.append("\(recording.camera.name) starting")
        continue
      }
      let key = ObjectIdentifier(recording)
      let last = meters[key] ?? (0, 0)
      let interval = figures.elapsed - last.elapsed
      let fps = interval > 0 ? Double(figures.snapshot.framesWritten - last.frames) / interval : 0
      if interval > 0 { meters[key] = (figures.snapshot.framesWritten, figures.elapsed) }
      parts.append(
        "\(recording.camera.name) \(RecordingStatusLine.fixed(fps, 1)) fps \(figures.snapshot.framesWritten) frames "
          + "\(figures.snapshot.dropped) dropped")
    }
    return Self.clock(elapsed) + "  " + parts.joined(separator: " | ")
  }

  /// For a log (a service's journal): each camera's progress line when one is due.
  func progressLines() -> [String] {
    var lines: [String] = []
    for recording in recordings {
      guard let figures = recording.figures else { continue }
      let key = ObjectIdentifier(recording)
      var log = progressLogs[key] ?? RecordingProgressLog(interval: 60)
      if let line = log.line(for: figures.snapshot, elapsed: figures.elapsed) {
        lines.append(line.replacingOccurrences(of: "camfx: ", with: "camfx: \(recording.camera.name): "))
      }
      progressLogs[key] = log
    }
    return lines
  }

  /// `mm:ss.s`, as the record status line starts.
  static func clock(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded(.down))
    let minutes = tenths / 600, rest = tenths % 600
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(minutes)):\(two(rest / 10)).\(rest % 10)"
  }
}
