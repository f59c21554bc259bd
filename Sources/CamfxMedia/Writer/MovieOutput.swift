import CamfxFFmpeg
import CamfxFrames

/// Where packets go from the packet bus: a movie file, segments, a network stream, or
/// an output of a user's own. Each output owns its muxer or socket and decides for
/// itself what a failure means; one encode feeds them all.
///
/// An output is attached to a `PacketBus` (`subscribe`), which gives it a queue and a
/// worker thread of its own: `prepare` is called once, before the worker starts; then
/// `write` for every packet (in decode order per stream, starting on a video keyframe),
/// then `finish` or `cancel` — all on that worker, one at a time, so an output needs no
/// lock of its own. The figures (`report`, `bytesWritten` ...) are read on the worker
/// too, after each write; the bus hands copies to other threads.
public protocol MovieOutput: AnyObject {
  /// The streams every later packet belongs to; called once, before any packet.
  func prepare(streams: [EncodedStream]) throws(FFmpegError)
  /// Muxes or sends one packet (timestamps in its stream's time base). The packet is
  /// shared with the other outputs: change a reference of your own, never the packet.
  func write(_ packet: EncodedPacket) throws(FFmpegError)
  /// Writes what is left and completes the output (an empty movie if nothing came).
  func finish() throws(FFmpegError)
  /// Ends at once: what was written is kept and completed as far as possible;
  /// an output that received nothing leaves nothing behind.
  func cancel()
  /// Bytes written so far.
  var bytesWritten: Int64 { get }
  /// Asked on the video encoder's thread before the frame at `seconds` (presentation
  /// time) is encoded: true makes the encoder code it as a keyframe (a segment
  /// boundary).
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
  /// What the output is and how it is doing.
  var report: OutputReport { get }
  /// How it takes packets it cannot write at once (`.everyPacket` for a file, the
  /// default). A live output's bytes and frames do not count toward `--max-size` or the
  /// summary's figures when the recording has a file.
  var delivery: OutputDelivery { get }
  /// True for an output that tries again after a failed `write` (a network stream):
  /// its worker calls `disconnect()`, waits 1, 2, 4 ... at most 30 s, and goes on at
  /// the next keyframe. Otherwise a failed write ends the output.
  var reconnects: Bool { get }
  /// Closes the connection after a failed write, before the next try.
  func disconnect()
  /// Called from another thread to cut a blocking write short (a server that takes
  /// nothing); `cancel()` follows on the worker.
  func interrupt()
  /// Seconds `finish()` may take to send what is queued before the output is
  /// interrupted (a live stream); nil to wait as long as it takes (a file).
  var finishTimeout: Double? { get }
  /// The one line said when a failed write ends the output (`error`'s by default).
  func endingNote(for error: FFmpegError) -> String
  /// What a file output adds to the recording's summary once it has finished; nil
  /// for a stream (the default). Unlike the other figures it is read straight from
  /// the output, by the thread that ran the recording, and only after the output's
  /// worker has ended (`PacketBus.finish` or `cancel` returned).
  var fileFigures: FileOutputFigures? { get }
}

/// What a finished file output tells the recording's summary beyond its report: the
/// segments it wrote, and what finishing and syncing a fragmented MP4 cost.
public struct FileOutputFigures: Sendable, Equatable {
  /// One file of a segmented output (`SegmentedMovieOutput.Segment`), as `--stats-json`
  /// lists it.
  public struct Segment: Sendable, Codable, Equatable {
    public var name: String
    /// Seconds from the start of the recording to the segment's first frame.
    public var start: Double
    public var duration: Double
    public var bytes: Int64
    /// False once loop recording deleted it.
    public var kept: Bool

    package init(name: String, start: Double, duration: Double, bytes: Int64, kept: Bool) {
      self.name = name
      self.start = start
      self.duration = duration
      self.bytes = bytes
      self.kept = kept
    }
  }

  /// The files of a segmented output, oldest first.
  public var segments: [Segment]? = nil
  /// Seconds the in-place finish of a fragmented MP4 took (writing its index).
  public var indexSeconds: Double? = nil
  /// Seconds spent in `fdatasync` making the fragments durable, and how many calls.
  public var syncSeconds: Double? = nil
  public var syncs: Int? = nil

  public init(
    segments: [Segment]? = nil, indexSeconds: Double? = nil, syncSeconds: Double? = nil,
    syncs: Int? = nil
  ) {
    self.segments = segments
    self.indexSeconds = indexSeconds
    self.syncSeconds = syncSeconds
    self.syncs = syncs
  }
}

extension MovieOutput {
  public func requestsKeyframe(atSeconds seconds: Double) -> Bool { false }
  public var keyframeIntervalLimit: Double? { nil }
  public var stopRequest: String? { nil }
  public var delivery: OutputDelivery { .everyPacket }
  public var isLive: Bool { delivery.isLive }
  public var reconnects: Bool { false }
  public func disconnect() {}
  public func interrupt() {}
  public var finishTimeout: Double? { nil }
  public func endingNote(for error: FFmpegError) -> String { error.description }
  public var fileFigures: FileOutputFigures? { nil }
}
