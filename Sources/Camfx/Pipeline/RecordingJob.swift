import CamfxMedia

/// What a recording command runs, whichever way the packets are made: a
/// `RecordingPipeline` (decoded, filtered and encoded) or a `PacketCopySession`
/// (`--video-codec copy`, `--preset passthrough`: packets as they are). `Recording`
/// builds the one a `RecordingPipeline.Configuration` asks for; a runner that stops,
/// reports and waits needs no more than this of either.
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
}
