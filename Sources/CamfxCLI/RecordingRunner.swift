import Camfx
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// How every command that records runs its job (`record`, `record --video-codec copy`,
/// `compose`, `compose --preset passthrough`): the stop signals, the status line or
/// progress bar, `--stats-json`, and a failure as the exit. The commands only parse
/// their options into a `RecordingPipeline.Configuration` and say how the summary
/// reads.
///
/// Made before the job, so that a signal that comes while the job is being built (its
/// files are created only when their first packet arrives) is remembered, and the
/// command gives up cleanly instead of starting.
final class RecordingRunner {
  /// What is shown while the job runs on a terminal.
  enum Display {
    /// Elapsed time, fps, frames, drops, size, bit rate, the live outputs (a live source).
    case statusLine
    /// A bar towards `frames` (a movie or a composition).
    case progress(frames: Int, frameSeconds: Double)
    case nothing
  }

  let quiet: Bool
  let statsFile: OutputFile?
  /// Why `--stats-json` could not be written at the end, if it could not: said as a
  /// warning then, and the exit status once the summary and the recording's own
  /// errors have been said (`requireStatsWritten`).
  private(set) var statsFailure: String?
  private let stopTarget = RecordingStopTarget()
  private let signals: StopSignals
  let onTerminal = isatty(STDERR_FILENO) != 0

  init(quiet: Bool, statsFile: OutputFile?) {
    self.quiet = quiet
    self.statsFile = statsFile
    let target = stopTarget
    signals = StopSignals(signals: [SIGINT, SIGTERM, SIGHUP]) { _, _ in target.signalled() }
    // A pipe whose reader went away must end that output, not the process.
    signal(SIGPIPE, SIG_IGN)
  }

  deinit { signals.cancel() }

  /// Whether the status line is drawn (it is erased before each message).
  var showsStatus: Bool { !quiet && onTerminal }

  /// Tells the user one line, on a line of its own even while a status line is drawn.
  var report: @Sendable (String) -> Void {
    let erase = showsStatus
    return { RecordCommand.printToStderr((erase ? "\r\u{1B}[2K" : "") + "camfx: \($0)\n") }
  }

  /// Runs `job` until it ends, showing `display`; writes `--stats-json`.
  /// - Parameter verbose: also print the video's path first.
  /// - Throws: `RecordingOptionError` when a signal came before the job started (it is
  ///   cancelled), and what starting it throws (a microphone that does not start).
  func run(_ job: any RecordingJob, display: Display, verbose: Bool = false) throws -> RecordingSummary {
    guard stopTarget.attach(job) else {
      job.cancel()
      throw RecordingOptionError("interrupted before the recording started")
    }
    if verbose { RecordCommand.printToStderr("camfx: video path: \(job.videoPath)\n") }
    let showStatus = showsStatus
    var statusLine = RecordingStatusLine()
    // A terminal gets a status line redrawn in place; a log (a service's journal, a
    // file) a line a minute, for a live source.
    var progressLog: RecordingProgressLog? = {
      guard !quiet && !onTerminal, case .statusLine = display else { return nil }
      return RecordingProgressLog(interval: 60)
    }()
    let interval: Double = if case .progress = display { 0.25 } else { 0.5 }
    let summary = try job.run(statusInterval: interval) { snapshot, elapsed in
      if let line = progressLog?.line(for: snapshot, elapsed: elapsed) { RecordCommand.printToStderr(line + "\n") }
      guard showStatus else { return }
      switch display {
      case .statusLine:
        RecordCommand.printToStderr(
          "\r\u{1B}[2K" + statusLine.text(for: snapshot, elapsed: elapsed) + RecordingStatusLine.liveOutputs(job.outputReports))
      case .progress(let frames, let frameSeconds):
        RecordCommand.printToStderr(
          "\r\u{1B}[2K"
            + RecordingStatusLine.progress(
              framesWritten: snapshot.framesWritten, totalFrames: frames, frameSeconds: frameSeconds, elapsed: elapsed))
      case .nothing: break
      }
    }
    if showStatus { RecordCommand.printToStderr("\r\u{1B}[2K") }
    // Only when the outputs ended it: outputs that stop while the file is finished (a
    // stream's last try) did not end a recording that a limit or a signal ended.
    if summary.stopReason == .outputsEnded || summary.stopReason == .minFree, let reason = job.stopRequest {
      RecordCommand.printToStderr("camfx: \(reason); finishing the recording\n")
    }
    if let statsFile {
      do {
        try RecordCommand.writeStats(summary, to: statsFile)
      } catch {
        statsFailure = "--stats-json '\(statsFile.path)' not written: \(error)"
        RecordCommand.printToStderr("camfx: warning: \(statsFailure!)\n")
      }
    }
    return summary
  }

  /// The `--stats-json` file a command will write, checked before it runs: its folder
  /// exists and takes new files (a recording of hours should not learn that at its end).
  static func statsFile(_ path: String?) throws -> OutputFile? {
    guard let path else { return nil }
    do {
      let file = try OutputFile(path: path, overwrite: true)
      try file.requireWritableDirectory()
      return file
    } catch let error as OutputFileError {
      throw RecordingOptionError("--stats-json '\(path)': \(error)")
    }
  }

  /// Exits non-zero when `--stats-json` was not written.
  func requireStatsWritten() throws {
    if let statsFailure { throw RecordingFailure(message: statsFailure) }
  }
}
