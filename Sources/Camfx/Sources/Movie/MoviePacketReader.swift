import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia

/// Reads a movie's video (and sound) as the packets it holds, without decoding them,
/// for `--video-codec copy`, as `AVAssetReaderTrackOutput` with nil output settings:
///
///     let reader = try MoviePacketReader(path: "cam.mkv")
///     let writer = PacketCopyWriter(streams: reader.streams, outputs: [file])
///     while let packet = try reader.nextPacket() { try writer.write(packet) }
public final class MoviePacketReader {
  public let path: String
  /// The streams copied: the first video stream, then the first audio stream if any
  /// (and wanted).
  public let streams: [EncodedStream]
  private let input: InputContext
  private let inputIndex: [Int32: Int]
  private let videoIndex: Int32
  private let videoTimeBase: AVRational
  /// The video's first timestamp, where times given to `seek` count from.
  public let videoStartTime: MediaTime
  /// The video stream's duration (else the container's), when stated.
  public let videoDuration: MediaTime?
  private let packet: FFmpegPacket

  /// - Parameter audio: copy the first audio stream too.
  /// - Throws: `FFmpegError` when the file cannot be opened or has no video.
  public init(path: String, audio: Bool = true) throws(FFmpegError) {
    self.path = path
    input = try InputContext(path: path)
    let ctx = input.context
    var streams: [EncodedStream] = []
    var map: [Int32: Int] = [:]
    let videoIndex = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    guard videoIndex >= 0 else {
      throw videoIndex == CAMFX_AVERROR_STREAM_NOT_FOUND
        ? FFmpegError(
          code: videoIndex, operation: "reading '\(path)'", message: "no video stream",
          summary: "'\(path)' has no video stream to copy")
        : FFmpegError.cannot("read '\(path)'", code: videoIndex)
    }
    let video = ctx.pointee.streams[Int(videoIndex)]!
    self.videoIndex = videoIndex
    videoTimeBase = video.pointee.time_base
    let tb = videoTimeBase
    videoStartTime = video.pointee.start_time != CAMFX_AV_NOPTS_VALUE
      ? MediaTime(ticks: video.pointee.start_time, in: tb) : .zero
    videoDuration = video.pointee.duration > 0
      ? MediaTime(ticks: video.pointee.duration, in: tb)
      : (ctx.pointee.duration > 0 ? MediaTime(value: ctx.pointee.duration, timescale: 1_000_000) : nil)
    streams.append(try EncodedStream(kind: .video, index: 0, copying: video))
    map[videoIndex] = 0
    if audio {
      let audioIndex = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, videoIndex, nil, 0)
      if audioIndex >= 0 {
        streams.append(try EncodedStream(kind: .audio, index: 1, copying: ctx.pointee.streams[Int(audioIndex)]!))
        map[audioIndex] = 1
      }
    }
    self.streams = streams
    inputIndex = map
    packet = try FFmpegPacket()
  }

  /// Moves to the last keyframe at or before `time` (from `videoStartTime`).
  public func seek(to time: MediaTime) throws(FFmpegError) {
    let target = videoStartTime + time
    try check(av_seek_frame(input.context, videoIndex, target.ticks(in: videoTimeBase), AVSEEK_FLAG_BACKWARD), "seeking in '\(path)'")
  }

  /// The next packet of a copied stream; `nil` at the end.
  public func nextPacket() throws(FFmpegError) -> EncodedPacket? {
    while true {
      av_packet_unref(packet.pointer)
      let r = av_read_frame(input.context, packet.pointer)
      if r == CAMFX_AVERROR_EOF { return nil }
      try check(r, "reading '\(path)'")
      guard let index = inputIndex[packet.pointer.pointee.stream_index] else { continue }
      return try EncodedPacket(stream: streams[index], movingFrom: packet.pointer)
    }
  }
}
