import CamfxCapture
import CamfxCore
import CamfxMedia

/// A camera's own compressed frames (MJPEG or H.264) as packets, neither decoded nor
/// encoded (`record --video-codec copy` from a camera): the way to record a large
/// picture on a small board with almost no CPU. Timestamps are the driver's, in
/// microseconds, made strictly increasing (a container refuses a repeated one).
///
/// An H.264 copy starts at the camera's first keyframe: the frames before it cannot be
/// decoded, and the keyframe's SPS and PPS become the stream's header, which the
/// outputs write before any packet. So `init` already streams, until that keyframe.
public final class CameraPacketSource: PacketSource {
  public let camera: V4L2Camera
  public let streams: [EncodedStream]
  private let packager: CompressedFramePackager
  private let frameMicroseconds: Int64
  private let isH264: Bool
  /// The H.264 keyframe `init` waited for, handed out first.
  private var firstFrame: (bytes: [UInt8], microseconds: Int64)?
  private var lastMicroseconds: Int64?

  /// How long an H.264 copy waits for the camera's first keyframe.
  public static let keyframeTimeout = 10.0

  /// - Throws: `SourceError` when the camera sends uncompressed frames, or H.264
  ///   without a keyframe (with its SPS and PPS) within `keyframeTimeout` seconds;
  ///   `V4L2Error` from the camera.
  public init(camera: V4L2Camera) throws {
    guard camera.deliversCompressedFrames else {
      throw SourceError(
        source: camera.path,
        reason: "--video-codec copy needs compressed frames, and it sends \(camera.format.pixelFormat.code) (try --input-format mjpeg)")
    }
    self.camera = camera
    let seconds = camera.frameDuration?.seconds ?? 1.0 / 30
    frameMicroseconds = Int64((seconds * 1_000_000).rounded())
    isH264 = camera.format.pixelFormat == .h264
    var header: [UInt8] = []
    if isH264 {
      let (frame, parameterSets) = try Self.firstKeyframe(of: camera)
      firstFrame = frame
      header = parameterSets
    }
    let stream = try EncodedStream(
      video: camera.format.pixelFormat.ffmpegName, width: camera.geometry.width, height: camera.geometry.height,
      framesPerSecond: 1 / seconds, header: header)
    streams = [stream]
    packager = try CompressedFramePackager(stream: stream, maximumBytes: camera.largestFrameBytes)
  }

  /// Reads the camera until an H.264 keyframe whose SPS and PPS are known (in the
  /// keyframe, or sent before it on their own).
  private static func firstKeyframe(of camera: V4L2Camera) throws -> ((bytes: [UInt8], microseconds: Int64), [UInt8]) {
    let deadline = MonotonicClock.seconds() + keyframeTimeout
    var parameterSets: [UInt8] = []
    var found: (bytes: [UInt8], microseconds: Int64)?
    while found == nil {
      guard MonotonicClock.seconds() < deadline else {
        throw SourceError(
          source: camera.path,
          reason: "sent no H.264 keyframe with its SPS and PPS within \(Int(keyframeTimeout)) s, so there is nothing a player could start from")
      }
      let streaming = try camera.nextCompressedFrame { bytes, time in
        let sets = H264Bitstream.parameterSets(in: bytes)
        if !sets.isEmpty { parameterSets = sets }
        guard H264Bitstream.isKeyframe(bytes), !parameterSets.isEmpty else { return false }
        found = (Array(bytes), time.converted(to: 1_000_000).value)
        return true
      }
      if !streaming && found == nil { throw SourceError(source: camera.path, reason: "stopped before its first H.264 keyframe") }
    }
    return (found!, parameterSets)
  }

  public var framesSkippedLate: Int { camera.framesDroppedByDriver }
  public var isLive: Bool { true }
  public var framesCorrupt: Int { camera.framesCorrupt }

  public func nextPacket() throws -> EncodedPacket? {
    if let first = firstFrame {
      firstFrame = nil
      return try first.bytes.withUnsafeBytes { try packet($0, microseconds: first.microseconds) }
    }
    var made: EncodedPacket?
    _ = try camera.nextCompressedFrame { bytes, time in
      made = try packet(bytes, microseconds: time.converted(to: 1_000_000).value)
      return true
    }
    return made
  }

  private func packet(_ bytes: UnsafeRawBufferPointer, microseconds: Int64) throws -> EncodedPacket {
    let t = lastMicroseconds.map { max(microseconds, $0 + 1) } ?? microseconds
    lastMicroseconds = t
    return try packager.packet(
      bytes, microseconds: t, durationMicroseconds: frameMicroseconds, isKeyframe: !isH264 || H264Bitstream.isKeyframe(bytes))
  }
}
