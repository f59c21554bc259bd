import CamfxCapture
import CamfxCore
import CamfxMedia

/// A camera's own compressed frames (MJPEG) as packets, neither decoded nor encoded
/// (`record --video-codec copy` from a camera): the way to record a large picture on a
/// small board with almost no CPU. Every JPEG is a keyframe; timestamps are the
/// driver's, in microseconds.
public final class CameraPacketSource: PacketSource {
  public let camera: V4L2Camera
  public let streams: [EncodedStream]
  private let packager: CompressedFramePackager
  private let frameMicroseconds: Int64

  /// - Throws: `SourceError` when the camera sends uncompressed frames.
  public init(camera: V4L2Camera) throws {
    guard camera.deliversCompressedFrames else {
      throw SourceError(
        source: camera.path,
        reason: "--video-codec copy needs compressed frames, and it sends \(camera.format.pixelFormat.code) (try --input-format mjpeg)")
    }
    self.camera = camera
    let seconds = camera.frameDuration?.seconds ?? 1.0 / 30
    frameMicroseconds = Int64((seconds * 1_000_000).rounded())
    let stream = try EncodedStream(
      video: camera.format.pixelFormat.ffmpegName, width: camera.geometry.width, height: camera.geometry.height,
      framesPerSecond: 1 / seconds)
    streams = [stream]
    packager = try CompressedFramePackager(stream: stream, maximumBytes: camera.largestFrameBytes)
  }

  public func nextPacket() throws -> EncodedPacket? {
    var packet: EncodedPacket?
    let taken = try camera.nextCompressedFrame { bytes, time in
      let microseconds = time.converted(to: 1_000_000).value
      packet = try packager.packet(bytes, microseconds: microseconds, durationMicroseconds: frameMicroseconds)
    }
    return taken ? packet : nil
  }
}
