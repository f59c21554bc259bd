import CamfxMedia

/// Where `PacketCopySession` takes packets from when nothing is decoded or encoded
/// (`--video-codec copy`): a movie's own packets, or a camera's compressed frames.
public protocol PacketSource: AnyObject {
  /// The streams of every packet, video first.
  var streams: [EncodedStream] { get }
  /// The next packet, `nil` at the end (or after a stop).
  func nextPacket() throws -> EncodedPacket?
  /// True for a camera: it cannot wait for the outputs.
  var isLive: Bool { get }
  /// Frames a live source skipped because they came too late (a camera's driver dropped
  /// them) and frames it dropped as damaged; a movie has none.
  var framesSkippedLate: Int { get }
  var framesCorrupt: Int { get }
}

extension PacketSource {
  public var framesSkippedLate: Int { 0 }
  public var framesCorrupt: Int { 0 }
  public var isLive: Bool { false }
}

extension MoviePacketReader: PacketSource {}
