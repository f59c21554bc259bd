/// Where a `MovieWriter` sends every packet its encoders make: a movie file, and
/// later segmenters and network streams. Each output owns its muxer and decides for
/// itself what a failure means; one encode feeds them all.
///
/// The writer calls these methods from one thread at a time (under its output lock):
/// `prepare` once, then `write` for every packet in decode order per stream, then
/// `finish` or `cancel`.
public protocol MovieOutput: AnyObject {
  /// The streams every later packet belongs to; called once, before any packet.
  func prepare(streams: [EncodedStream]) throws(FFmpegError)
  /// Muxes one packet (timestamps in its stream's time base).
  func write(_ packet: EncodedPacket) throws(FFmpegError)
  /// Writes what is left and completes the output (an empty movie if nothing came).
  func finish() throws(FFmpegError)
  /// Ends at once: what was written is kept and completed as far as possible;
  /// an output that received nothing leaves nothing behind.
  func cancel()
  /// Bytes written so far.
  var bytesWritten: Int64 { get }
  /// Asked before the video frame at `seconds` (presentation time) is encoded: true
  /// makes the encoder code it as a keyframe (a segment boundary).
  func requestsKeyframe(atSeconds seconds: Double) -> Bool
  /// The longest keyframe interval (seconds) the output can cut on, for encoders that
  /// do not take a keyframe when asked; nil for any.
  var keyframeIntervalLimit: Double? { get }
  /// Set when the output wants the recording to end cleanly (`--min-free` reached),
  /// with the reason as one line.
  var stopRequest: String? { get }
  /// Video frames it holds, and where the last one ends (seconds): fewer than were
  /// encoded when it stopped muxing at a size limit.
  var videoPacketsWritten: Int { get }
  var videoEndSeconds: Double { get }
  /// What the output is and how it is doing (may be read from any thread).
  var report: OutputReport { get }
  /// True for an output that sends packets on its own thread and drops what it cannot
  /// send in time (a network stream, a pipe, HLS): it never holds the encoder up, and
  /// its bytes and frames do not count toward `--max-size` or the summary's figures.
  var isLive: Bool { get }
  /// True once the output has stopped taking packets for good (a pipe whose reader
  /// went away); a recording whose outputs have all ended stops.
  var hasEnded: Bool { get }
}

extension MovieOutput {
  public func requestsKeyframe(atSeconds seconds: Double) -> Bool { false }
  public var keyframeIntervalLimit: Double? { nil }
  public var stopRequest: String? { nil }
  public var isLive: Bool { false }
  public var hasEnded: Bool { false }
}
