/// How one output of a recording is doing, for the status line and `--stats-json`.
public struct OutputReport: Sendable, Codable, Equatable {
  public enum State: String, Sendable, Codable, CaseIterable {
    /// No packet has reached it yet.
    case waiting
    case connecting
    /// Writing (a file) or sending (a stream).
    case writing
    /// A network output that lost its server and is trying again.
    case reconnecting
    case finished
    case failed
  }

  /// The path or URL (without password or query).
  public var name: String
  /// `file`, `segments`, `network`, `pipe` or `hls`.
  public var kind: String
  public var state: State
  /// Bytes written (a file) or packet bytes sent (a stream).
  public var bytes: Int64
  /// Video frames written or sent. For a stream, "sent" means handed to the connection:
  /// frames still in its buffers or in flight when the server goes away count as sent
  /// though the server never gets them.
  public var videoFrames: Int
  /// Seconds of video written or sent (a file: its length), and the bits per second
  /// that makes of `bytes`; set by the output's subscription on the bus.
  public var videoSeconds: Double? = nil
  public var bitsPerSecond: Double? = nil
  /// Video frames a live output dropped because it could not keep up or was
  /// disconnected, in whole GOPs, and how many times it dropped.
  public var droppedFrames: Int = 0
  public var droppedGroups: Int = 0
  /// Times a network output connected again after losing its server.
  public var reconnects: Int = 0
  /// Times a file output's queue was full, so that the encoder waited for it, and the
  /// seconds it waited in all (nil when it never was).
  public var stalls: Int? = nil
  public var stalledSeconds: Double? = nil
  /// Packets and bytes waiting in its queue on the bus (nil: not attached to one).
  public var queuedPackets: Int? = nil
  public var queuedBytes: Int? = nil
  /// The last error, if any (the output may have recovered from it).
  public var error: String?

  public init(
    name: String, kind: String, state: State, bytes: Int64, videoFrames: Int, droppedFrames: Int = 0,
    droppedGroups: Int = 0, reconnects: Int = 0, error: String? = nil
  ) {
    self.name = name
    self.kind = kind
    self.state = state
    self.bytes = bytes
    self.videoFrames = videoFrames
    self.droppedFrames = droppedFrames
    self.droppedGroups = droppedGroups
    self.reconnects = reconnects
    self.error = error
  }

  enum CodingKeys: String, CodingKey {
    case name, kind, state, bytes, videoFrames = "video_frames", droppedFrames = "dropped_frames"
    case droppedGroups = "dropped_gops", reconnects, error, stalls, stalledSeconds = "stalled_seconds"
    case videoSeconds = "video_seconds", bitsPerSecond = "bits_per_second"
    case queuedPackets = "queued_packets", queuedBytes = "queued_bytes"
  }
}

extension OutputReport.State {
  /// The state of a file output with `status`.
  package init(_ status: WritingStatus) {
    switch status {
    case .unknown: self = .waiting
    case .writing: self = .writing
    case .completed, .cancelled: self = .finished
    case .failed: self = .failed
    }
  }
}
