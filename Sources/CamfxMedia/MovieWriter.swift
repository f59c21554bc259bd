import CFFmpeg
import CamfxCore
import Synchronization

/// Writes an H.264 (+ AAC) movie file, like `AVAssetWriter` with a video input, a
/// pixel buffer adaptor and an audio input, on libavformat/libavcodec.
///
/// Lifecycle and status (`AVAssetWriter.Status`):
///
///     init ──> .unknown ──startWriting()──> .writing ──finish()──> .completed
///                                              │  └────cancel()───> .cancelled (file removed)
///                                              └──FFmpeg error────> .failed(error) (file removed)
///
/// ```swift
/// var video = VideoSettings(width: 640, height: 360)
/// video.rateControl = .bitrate(try Bitrate.parse("4M"))
/// let writer = try MovieWriter(path: "out.mp4", settings: MovieSettings(video: video, audio: AudioSettings()))
/// try writer.startWriting()
/// writer.startSession(atSourceTime: firstFrame.presentationTime)
/// try writer.append(frame)               // BGRA PixelBuffer, any number of times
/// try writer.append(audio: pcm)          // interleaved S16 PCMBuffer
/// try writer.finish()
/// ```
///
/// - The container follows the extension: `.mp4`, `.mov`, `.mkv`.
/// - Timestamps are the frames' own, minus the session start, rescaled with
///   `av_rescale_q` to the encoder's time base (`VideoSettings.timescale`); they must
///   increase strictly. Audio timestamps start at the first buffer's time and then
///   count samples. Without `startSession`, the first *video* frame is time zero
///   (audio arriving earlier waits for it, and what lies before it is trimmed).
/// - Bad settings (unknown codec or profile, odd size, unsupported extension) throw
///   `MediaSettingsError` from `init`, before any file exists.
/// - An error from FFmpeg while writing moves the writer to `.failed`, deletes the
///   partial file and is thrown (and rethrown by every later call). A frame the writer
///   refuses (wrong size, timestamp not increasing) throws `FFmpegError` with code
///   `AVERROR(EINVAL)` but leaves the writer `.writing`.
/// - A writer released while `.writing` cancels itself, so no half-written file stays.
///
/// Thread safety: video and audio may be appended from two different threads; the
/// video encoder, the audio encoder and the muxer each have their own lock.
public final class MovieWriter: @unchecked Sendable {
  // @unchecked Sendable: every mutable field below is only touched under one of the
  // three locks (video state under `videoLock`, audio state under `audioLock`, the
  // muxer and `state` under `muxLock`), always taken in that order.

  /// Where the writer is in its life, as `AVAssetWriter.Status`.
  public enum Status: Sendable, Equatable, CustomStringConvertible {
    case unknown, writing, completed, failed(FFmpegError), cancelled
    public var description: String {
      switch self {
      case .unknown: "unknown"
      case .writing: "writing"
      case .completed: "completed"
      case .failed(let e): "failed: \(e)"
      case .cancelled: "cancelled"
      }
    }
  }

  public let path: String
  public let settings: MovieSettings
  public let container: MovieContainer

  private let muxer: Muxer
  private let video: VideoEncoder
  private let videoStream: UnsafeMutablePointer<AVStream>
  private let adaptor: PixelBufferAdaptor
  private let videoPacket: FFmpegPacket
  let audio: AudioEncoder?
  let audioStream: UnsafeMutablePointer<AVStream>?

  private let videoLock = Mutex(())
  let audioLock = Mutex(())
  private let muxLock = Mutex(())

  // muxLock
  private var state: Status = .unknown
  private var sessionStart: MediaTime? = nil
  private var bytesAtLastQuery: Int64 = 0
  // audioLock: audio appended before the session start was known.
  var pendingAudio: [PCMBuffer] = []
  /// True while `pendingAudio` is not empty, so video appends need not take `audioLock`.
  let hasPendingAudio = Atomic<Bool>(false)
  // videoLock
  private var lastVideoTicks: Int64? = nil
  private var videoFrames = 0

  /// Checks the settings, opens the encoders and prepares the container. Creates no file.
  /// - Parameters:
  ///   - path: the output file; its extension picks the container.
  ///   - settings: video (required) and audio (optional) encoding.
  /// - Throws: `MediaSettingsError` for bad settings, `FFmpegError` when FFmpeg refuses them.
  public init(path: String, settings: MovieSettings) throws {
    try settings.validate()
    self.path = path
    self.settings = settings
    container = try MovieContainer(path: path)
    muxer = try Muxer(path: path, container: container)
    video = try VideoEncoder(settings: settings.video, globalHeader: muxer.wantsGlobalHeader)
    videoStream = try muxer.addStream(for: video.pointer)
    videoStream.pointee.avg_frame_rate = video.pointer.pointee.framerate
    adaptor = try PixelBufferAdaptor(width: settings.video.width, height: settings.video.height)
    videoPacket = try FFmpegPacket()
    if let a = settings.audio {
      let encoder = try AudioEncoder(settings: a, globalHeader: muxer.wantsGlobalHeader)
      audio = encoder
      audioStream = try muxer.addStream(for: encoder.context.pointer)
    } else {
      audio = nil
      audioStream = nil
    }
  }

  deinit {
    // Never leave a half-written file behind: a writer dropped while writing is cancelled.
    if case .writing = state { muxer.discardFile() }
  }

  /// The current status.
  public var status: Status { muxLock.withLock { _ in state } }

  /// The error that failed the writer, if it failed.
  public var error: FFmpegError? {
    if case .failed(let e) = status { return e }
    return nil
  }

  /// Bytes written to the file so far (for status lines and `--max-size`).
  public var bytesWritten: Int64 {
    muxLock.withLock { _ in
      guard muxer.fileOpen, let pb = muxer.context.pointee.pb else { return bytesAtLastQuery }
      let n = avio_tell(pb)
      if n > 0 { bytesAtLastQuery = n }
      return bytesAtLastQuery
    }
  }

  /// Video frames accepted so far.
  public var videoFramesAppended: Int { videoLock.withLock { _ in videoFrames } }

  /// Creates the file and writes the container header: `.unknown` → `.writing`.
  /// Called by the first `append` if not called before.
  /// - Throws: `FFmpegError` (e.g. `avio_open` with "No such file or directory").
  public func startWriting() throws(FFmpegError) {
    try muxLock.withLock { _ throws(FFmpegError) in try startWritingLocked() }
  }

  private func startWritingLocked() throws(FFmpegError) {
    switch state {
    case .writing: return
    case .unknown: break
    case .failed(let e): throw e
    case .completed, .cancelled:
      throw FFmpegError.invalid("startWriting '\(path)'", "the writer is already \(state)")
    }
    do throws(FFmpegError) {
      try muxer.open(faststart: settings.faststart)
      state = .writing
    } catch {
      failLocked(error)
      throw error
    }
  }

  /// Sets the source time that becomes time zero in the file, like
  /// `AVAssetWriter.startSession(atSourceTime:)`. Frames before it are skipped.
  /// Without a call, the first appended frame or audio buffer starts the session.
  public func startSession(atSourceTime time: MediaTime) {
    muxLock.withLock { _ in
      if sessionStart == nil { sessionStart = time }
    }
  }

  /// The session start, if fixed yet.
  var currentSessionStart: MediaTime? { muxLock.withLock { _ in sessionStart } }

  /// The session start, fixing it at `time` if none was set yet.
  func sessionStart(orStartAt time: MediaTime) -> MediaTime {
    muxLock.withLock { _ in
      if let s = sessionStart { return s }
      sessionStart = time
      return time
    }
  }

  /// Ticks of `1/timescale` for `time` (`av_rescale_q`, rounding to nearest).
  static func ticks(_ time: MediaTime, timescale: Int32) -> Int64 {
    av_rescale_q(time.value, AVRational(num: 1, den: time.timescale), AVRational(num: 1, den: timescale))
  }

  /// Encodes one BGRA frame at its `presentationTime`.
  ///
  /// - Returns: `false` if the frame lies before the session start and was skipped.
  /// - Throws: `FFmpegError`: `AVERROR(EINVAL)` for a frame of the wrong size or a
  ///   timestamp not after the previous one (the writer keeps writing); any other code
  ///   from the encoder or muxer (the writer has failed).
  @discardableResult
  public func append(_ frame: PixelBuffer) throws(FFmpegError) -> Bool {
    try appendVideo(at: frame.presentationTime) { () throws(FFmpegError) in try adaptor.convert(frame) }
  }

  /// Encodes one yuv420p frame at its `presentationTime` as it is, with no conversion
  /// (a transcode's yuv420p filter pass or row-band pass has already made the encoder's
  /// pixel format). The
  /// encoder may keep a reference to the frame's buffers; the frame's pool then gives
  /// that frame fresh buffers before it is written again.
  ///
  /// - Returns and throws as `append(_:)` for a `PixelBuffer`.
  @discardableResult
  public func append(_ frame: YUV420Frame) throws(FFmpegError) -> Bool {
    guard frame.width == settings.video.width, frame.height == settings.video.height else {
      throw FFmpegError.invalid(
        "append video frame", "frame is \(frame.geometry) but the video track is \(settings.video.width)x\(settings.video.height)")
    }
    return try appendVideo(at: frame.presentationTime) { () throws(FFmpegError) in frame.avFrame }
  }

  /// The part of both `append`s after the picture: the session start, the timestamp
  /// checks, the encoder, and audio that waited for this frame.
  private func appendVideo(
    at time: MediaTime, picture: () throws(FFmpegError) -> UnsafeMutablePointer<AVFrame>
  ) throws(FFmpegError) -> Bool {
    try startWriting()
    let appended = try videoLock.withLock { _ throws(FFmpegError) -> Bool in
      let start = sessionStart(orStartAt: time)
      if time < start { return false }
      let timescale = settings.video.timescale
      let pts = Self.ticks(time, timescale: timescale) - Self.ticks(start, timescale: timescale)
      if let last = lastVideoTicks, pts <= last {
        throw FFmpegError.invalid(
          "append video frame",
          "timestamp \(time.seconds) s is not after the previous frame's (\(Double(last) / Double(timescale)) s)")
      }
      let avFrame = try picture()
      avFrame.pointee.pts = pts
      try encodeVideo(avFrame)
      lastVideoTicks = pts
      videoFrames += 1
      return true
    }
    if audio != nil { try flushPendingAudio() }
    return appended
  }

  /// Sends `frame` (nil: flush) to the video encoder and writes every packet it returns.
  private func encodeVideo(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
    do throws(FFmpegError) {
      try check(avcodec_send_frame(video.pointer, frame), "avcodec_send_frame \(settings.video.codec)")
      try drain(encoder: video.pointer, stream: videoStream, packet: videoPacket.pointer, name: settings.video.codec)
    } catch {
      fail(error)
      throw error
    }
  }

  /// Receives every ready packet from `encoder` and muxes it.
  func drain(
    encoder: UnsafeMutablePointer<AVCodecContext>, stream: UnsafeMutablePointer<AVStream>,
    packet: UnsafeMutablePointer<AVPacket>, name: String
  ) throws(FFmpegError) {
    while true {
      let r = avcodec_receive_packet(encoder, packet)
      if r == CAMFX_AVERROR_EAGAIN || r == CAMFX_AVERROR_EOF { return }
      try check(r, "avcodec_receive_packet \(name)")
      try muxLock.withLock { _ throws(FFmpegError) in
        guard case .writing = state else {
          av_packet_unref(packet)
          if case .failed(let e) = state { throw e }
          throw FFmpegError.invalid("write packet", "the writer is \(state)")
        }
        if packet.pointee.duration == 0, encoder.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
          encoder.pointee.framerate.num > 0
        {
          // libx264 leaves packet durations unset; the nominal frame duration gives the
          // last frame a length, so the file lasts frames × 1/fps rather than one frame less.
          packet.pointee.duration = av_rescale_q(1, av_inv_q(encoder.pointee.framerate), encoder.pointee.time_base)
        }
        av_packet_rescale_ts(packet, encoder.pointee.time_base, stream.pointee.time_base)
        packet.pointee.stream_index = stream.pointee.index
        try muxer.write(packet)
      }
    }
  }

  /// Flushes the encoders, writes the trailer (the index) and closes the file:
  /// `.writing` → `.completed`, like `AVAssetWriter.finishWriting`.
  /// - Throws: `FFmpegError` (the writer has then failed and the file is removed).
  public func finish() throws(FFmpegError) {
    switch status {
    case .writing: break
    case .unknown: try startWriting()  // an empty but valid movie
    case .failed(let e): throw e
    case .completed: return
    case .cancelled: throw FFmpegError.invalid("finish '\(path)'", "the writer was cancelled")
    }
    try videoLock.withLock { _ throws(FFmpegError) in try encodeVideo(nil) }
    if audio != nil { try finishAudio() }
    try muxLock.withLock { _ throws(FFmpegError) in
      guard case .writing = state else {
        if case .failed(let e) = state { throw e }
        return
      }
      do throws(FFmpegError) {
        try muxer.finish()
        state = .completed
      } catch {
        failLocked(error)
        throw error
      }
    }
  }

  /// Stops writing and deletes the partial file: → `.cancelled`, like `cancelWriting()`.
  public func cancel() {
    muxLock.withLock { _ in
      switch state {
      case .unknown, .writing:
        muxer.discardFile()
        state = .cancelled
      case .completed, .failed, .cancelled: break
      }
    }
  }

  /// Moves to `.failed(error)` and removes the partial file.
  func fail(_ error: FFmpegError) {
    muxLock.withLock { _ in failLocked(error) }
  }

  private func failLocked(_ error: FFmpegError) {
    switch state {
    case .unknown, .writing:
      muxer.discardFile()
      state = .failed(error)
    case .completed, .failed, .cancelled: break
    }
  }
}
