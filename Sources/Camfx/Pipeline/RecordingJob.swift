import CamfxMedia

/// What a recording command runs, whichever way the packets are made: a
/// `RecordingPipeline` (decoded, filtered and encoded) or a `PacketCopySession`
/// (`--video-codec copy`, `--preset passthrough`: packets as they are). Both are built
/// from a `RecordingPipeline.Configuration` (`RecordingPipeline.makeJob`).
public protocol RecordingJob: AnyObject, Sendable {
  /// Records until a limit, the end of the input, `stop()` or a failure, calling
  /// `status` every `statusInterval` seconds with the live figures (a copy has none);
  /// finishes every output.
  func run(statusInterval: Double, status: (RecordingStatistics.Snapshot, Double) -> Void) throws -> RecordingSummary
  /// Ends cleanly: the encoder is drained and every output finished (a first Ctrl-C).
  func stop()
  /// Ends at once, without what is still in the encoder (a second Ctrl-C); the files
  /// are still finished with what they hold.
  func stopAtOnce()
  /// Ends every output at once, keeping what was written (a job that never ran).
  func cancel()
  var outputReports: [OutputReport] { get }
  /// Why an output asked the recording to end (`--min-free`), if one did.
  var stopRequest: String? { get }
  /// The path the video takes, from the source to the encoder or the copy.
  var videoPath: String { get }
  /// The frames a movie or a composition will give, when known (what a progress bar
  /// counts towards).
  var expectedFrames: Int? { get }
}

extension RecordingPipeline {
  /// The job `configuration` describes: a copy of the input's packets when its video
  /// codec is `copy`, else a pipeline.
  /// - Throws: as `RecordingPipeline.init` and `PacketCopySession.init(_:report:)`.
  public static func makeJob(
    _ configuration: Configuration, report: @escaping @Sendable (String) -> Void = { _ in }
  ) throws -> any RecordingJob {
    if configuration.video.codec == "copy" { return try PacketCopySession(configuration, report: report) }
    return try RecordingPipeline(configuration, report: report)
  }
}
