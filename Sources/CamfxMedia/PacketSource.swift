/// Where `PacketCopySession` takes packets from when nothing is decoded or encoded
/// (`--video-codec copy`): a movie's own packets, or a camera's compressed frames.
public protocol PacketSource: AnyObject {
  /// The streams of every packet, video first.
  var streams: [EncodedStream] { get }
  /// The next packet, lent until the next call; `nil` at the end (or after a stop).
  func nextPacket() throws -> EncodedPacket?
}

extension MoviePacketReader: PacketSource {}
