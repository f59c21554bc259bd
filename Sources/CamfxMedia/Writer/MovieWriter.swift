import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import Synchronization

/// Encodes video frames and PCM audio once and hands the packets to its outputs, like
/// `AVAssetWriter` with a video input, a pixel buffer adaptor and an audio input, on
/// libavcodec:
///
///     frames ──▶ adaptor (BGRA → yuv420p) ──▶ VideoEncoder ──┐ packets
///     PCM ────▶ resampler, FIFO ──────────▶ AudioEncoder ──┴──▶ bus ──▶ outputs (MovieFileOutput, ...)
///
/// The encoders publish each packet once on the writer's `bus`; every output has a
/// queue and a worker thread of its own there, so a file's sync or a slow server never
/// holds the encoder up, and outputs can attach and detach while the writer runs
/// (`bus.subscribe`, `bus.unsubscribe`).
///
/// Lifecycle and status (`AVAssetWriter.Status`):
///
///     init ──> .unknown ──startWriting()──> .writing ──finish()──> .completed
///                                              │  └────cancel()───> .cancelled
///                                              └──error──────────> .failed(error)
///
/// What an output has written stays whatever happens: each output owns its file and
/// its failure policy (see `MovieFileOutput`). `cancel()` stops without draining the
/// encoders and completes what the outputs already hold.
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
/// - Timestamps are the frames' own, minus the session start, rescaled with
///   `av_rescale_q` to the encoder's time base (`VideoSettings.timescale`); they must
///   increase strictly. Audio timestamps start at the first buffer's time and then
///   count samples. Without `startSession`, the first *video* frame is time zero
///   (audio arriving earlier waits for it, and what lies before it is trimmed).
/// - Bad settings (unknown codec or profile, odd size) throw `MediaSettingsError` from
///   `init`, before any file exists.
/// - An error from an encoder or an output moves the writer to `.failed` and is thrown
///   (and rethrown by every later call). A frame the writer refuses (wrong size,
///   timestamp not increasing) throws `FFmpegError` with code `AVERROR(EINVAL)` but
///   leaves the writer `.writing`.
///
/// Thread safety: video and audio may be appended from two different threads; the
/// video encoder, the audio encoder and the writer's state each have their own lock.
/// Packets are published after the encoder's lock is let go (`PacketOutbox`), so a file
/// whose queue is full makes the appending thread wait, holding none of them.
public final class MovieWriter: @unchecked Sendable {
  // @unchecked Sendable: every mutable field below is only touched under one of the
  // three locks (video state under `videoLock`, audio state under `audioLock`, the
  // session times and `state` under `outputLock`), always taken in that order.

  /// Where the writer is in its life, as `AVAssetWriter.Status`.
  public typealias Status = WritingStatus

  public let settings: MovieSettings
  /// Where the encoders publish their packets; the outputs given to `init` are
  /// attached to it, and others can attach and detach while the writer runs.
  public let bus: PacketBus

  private let video: VideoEncoder
  private let videoStream: EncodedStream
  /// Made at the first BGRA frame (videoLock): a yuv420p path never needs its frames.
  private var adaptor: PixelBufferAdaptor?
  private let videoPacket: FFmpegPacket
  let audio: AudioEncoder?
  let audioStream: EncodedStream?
  /// Audio packets wait here until the video published reaches them.
  let audioHold = AudioPacketHold()
  /// The packets the encoders made under their locks, published once the lock is let
  /// go: a file whose queue is full then holds up no one who needs a lock.
  let outbox = PacketOutbox()
  /// Set by `interrupt()`: the encoders give up at their next packet.
  private let interrupted = Atomic<Bool>(false)

  private let videoLock = Mutex(())
  let audioLock = Mutex(())
  private let outputLock = Mutex(())

  // outputLock
  private var state: Status = .unknown
  private var sessionStart: MediaTime? = nil
  private var sessionEnd: MediaTime? = nil
  // audioLock: audio appended before the session start was known.
  var pendingAudio: [PCMBuffer] = []
  /// True while `pendingAudio` is not empty, so video appends need not take `audioLock`.
  let hasPendingAudio = Atomic<Bool>(false)
  // videoLock
  private var lastVideoTicks: Int64? = nil
  /// `lastVideoTicks` for other threads (`latestVideoSeconds`); -1 before the first.
  private let latestVideoTicks = Atomic<Int64>(-1)
  private var videoFrames = 0

  /// Checks the settings and opens the encoders. Creates no file.
  /// - Parameters:
  ///   - settings: video (required) and audio (optional) encoding.
  ///   - outputs: where the packets go, attached to the bus now (each is told the
  ///     streams).
  ///   - fileQueueLimits: how many packets a file's queue holds before the encoder
  ///     waits for it (`OutputQueueLimits.file` behind a live source).
  ///   - events: told, one line each, when an output reconnects or ends.
  /// - Throws: `MediaSettingsError` for bad settings, `FFmpegError` when FFmpeg refuses them.
  public init(
    settings: MovieSettings, outputs: [any MovieOutput], fileQueueLimits: OutputQueueLimits = .file,
    events: (@Sendable (String) -> Void)? = nil
  ) throws {
    try settings.validate()
    var settings = settings
    // FFmpeg 5.1's libsvtav1 ignores a frame's keyframe request: segment boundaries
    // then come from a keyframe interval that divides the segment's length.
    if settings.video.codec == "libsvtav1", let limit = outputs.compactMap(\.keyframeIntervalLimit).min() {
      settings.video.gop = min(settings.video.effectiveGOP, max(1, Int((limit * settings.video.fps).rounded())))
    }
    self.settings = settings
    // Every container camfx writes keeps the codec headers out of band (extradata).
    video = try VideoEncoder(settings: settings.video, globalHeader: true)
    videoStream = try EncodedStream(kind: .video, index: 0, encoder: video.pointer)
    videoPacket = try FFmpegPacket()
    var streams = [videoStream]
    if let a = settings.audio {
      let encoder = try AudioEncoder(settings: a, globalHeader: true)
      audio = encoder
      let stream = try EncodedStream(kind: .audio, index: 1, encoder: encoder.context.pointer)
      audioStream = stream
      streams.append(stream)
    } else {
      audio = nil
      audioStream = nil
    }
    let bus = PacketBus(streams: streams, fileQueueLimits: fileQueueLimits, events: events)
    self.bus = bus
    recordedOutputs = try outputs.map { output throws(FFmpegError) in try bus.subscribe(output) }
  }

  deinit {
    // A writer dropped while writing completes what its outputs hold.
    bus.cancel()
  }

  /// The current status.
  public var status: Status { outputLock.withLock { _ in state } }

  /// The error that failed the writer, if it failed.
  public var error: FFmpegError? {
    if case .failed(let e) = status { return e }
    return nil
  }

  /// The recording's own outputs, those given to `init`: what its figures and reports
  /// are about. (An output attached later, an event clip or a viewer, has its own
  /// `PacketSubscription` to ask.)
  public let recordedOutputs: [PacketSubscription]

  /// The outputs a recording is measured by: its files, or its live outputs when it
  /// has no file.
  private var measuredOutputs: [PacketSubscription] {
    let files = recordedOutputs.filter { !$0.delivery.isLive }
    return files.isEmpty ? recordedOutputs : files
  }

  /// Bytes the files have written so far (for status lines and `--max-size`); the
  /// live outputs' when there is no file.
  public var bytesWritten: Int64 { measuredOutputs.reduce(0) { $0 + $1.bytesWritten } }

  /// Bytes of the largest of those outputs so far: what `--max-size` holds each file to.
  public var largestOutputBytes: Int64 { measuredOutputs.map(\.bytesWritten).max() ?? 0 }

  /// Why an output wants the recording to end cleanly (`--min-free`, or every output
  /// has ended), if one does.
  public var stopRequest: String? {
    let all = recordedOutputs
    if let request = all.lazy.compactMap(\.stopRequest).first { return request }
    if !all.isEmpty, all.allSatisfy(\.hasEnded) {
      return all.count == 1 ? "the output has stopped" : "every output has stopped"
    }
    return nil
  }

  /// True when every output has ended (a pipe whose reader left, a failed HLS output).
  public var allOutputsEnded: Bool {
    !recordedOutputs.isEmpty && recordedOutputs.allSatisfy(\.hasEnded)
  }

  /// How each of the outputs the recording is measured by is doing (its files, or its
  /// live outputs when it has no file), in the order they were attached.
  public var measuredOutputReports: [OutputReport] { measuredOutputs.map(\.report) }

  /// How each output is doing, in the order they were attached.
  public var outputReports: [OutputReport] { recordedOutputs.map(\.report) }

  /// The video the files hold: frames and seconds (the file with the fewest), which
  /// is less than was appended when a file stopped at a size limit; nil for a writer
  /// with no output of its own (event clips only).
  public var videoInOutputs: (frames: Int, seconds: Double)? {
    let measured = measuredOutputs
    guard !measured.isEmpty else { return nil }
    return (measured.map(\.videoPacketsWritten).min() ?? 0, measured.map(\.videoEndSeconds).min() ?? 0)
  }

  /// Where the recording is: the time in the movie of the newest video frame accepted
  /// (seconds from the session start; 0 before the first). What an event's trigger is
  /// stamped with.
  public var latestVideoSeconds: Double {
    let ticks = latestVideoTicks.load(ordering: .relaxed)
    return ticks < 0 ? 0 : Double(ticks) / Double(settings.video.timescale)
  }

  /// Video frames accepted so far.
  public var videoFramesAppended: Int { videoLock.withLock { _ in videoFrames } }

  /// `.unknown` → `.writing`. Called by the first `append` if not called before; the
  /// outputs create their files when the first packet reaches them.
  public func startWriting() throws(FFmpegError) {
    try outputLock.withLock { _ throws(FFmpegError) in
      switch state {
      case .writing: return
      case .unknown: state = .writing
      case .failed(let e): throw e
      case .completed, .cancelled:
        throw FFmpegError.invalid("startWriting", "the writer is already \(state)")
      }
    }
  }

  /// Sets the source time that becomes time zero in the file, like
  /// `AVAssetWriter.startSession(atSourceTime:)`. Frames before it are skipped.
  /// Without a call, the first appended frame or audio buffer starts the session.
  public func startSession(atSourceTime time: MediaTime) {
    outputLock.withLock { _ in
      if sessionStart == nil { sessionStart = time }
    }
  }

  /// The session start, if fixed yet: the source time that is zero in the outputs.
  public var currentSessionStart: MediaTime? { outputLock.withLock { _ in sessionStart } }

  /// The session start, fixing it at `time` if none was set yet.
  func sessionStart(orStartAt time: MediaTime) -> MediaTime {
    outputLock.withLock { _ in
      if let s = sessionStart { return s }
      sessionStart = time
      return time
    }
  }

  /// Ticks of `1/timescale` for `time` (`av_rescale_q`, rounding to nearest).
  package static func ticks(_ time: MediaTime, timescale: Int32) -> Int64 {
    av_rescale_q(time.value, AVRational(num: 1, den: time.timescale), AVRational(num: 1, den: timescale))
  }

  /// Encodes one BGRA frame at its `presentationTime`.
  ///
  /// - Returns: `false` if the frame lies before the session start and was skipped.
  /// - Throws: `FFmpegError`: `AVERROR(EINVAL)` for a frame of the wrong size or a
  ///   timestamp not after the previous one (the writer keeps writing); any other code
  ///   from the encoder or an output (the writer has failed).
  @discardableResult
  public func append(_ frame: PixelBuffer) throws(FFmpegError) -> Bool {
    try appendVideo(at: frame.presentationTime) { () throws(FFmpegError) in
      let converter: PixelBufferAdaptor
      if let adaptor {
        converter = adaptor
      } else {
        converter = try PixelBufferAdaptor(width: settings.video.width, height: settings.video.height)
        adaptor = converter
      }
      return try converter.convert(frame)
    }
  }

  /// Encodes one yuv420p frame at its `presentationTime` as it is, with no conversion
  /// (a transcode's yuv420p filter pass or row-band pass has already made the encoder's
  /// pixel format). The encoder may keep a reference to the frame's buffers; the
  /// frame's pool then gives that frame fresh buffers before it is written again.
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
      // A segment boundary wants this frame to be a keyframe (frames are reused: reset).
      let seconds = Double(pts) / Double(timescale)
      let keyframe = bus.requestsKeyframe(atSeconds: seconds)
      avFrame.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
      try encodeVideo(avFrame)
      lastVideoTicks = pts
      latestVideoTicks.store(pts, ordering: .relaxed)
      videoFrames += 1
      return true
    }
    try publishMadePackets()
    if audio != nil { try flushPendingAudio() }
    return appended
  }

  /// Sends `frame` (nil: flush) to the video encoder and hands every packet it
  /// returns to the outputs.
  private func encodeVideo(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
    do throws(FFmpegError) {
      try check(avcodec_send_frame(video.pointer, frame), "encoding video with '\(settings.video.codec)'")
      if frame != nil { video.hasSentFrames = true }
      try drain(encoder: video.pointer, stream: videoStream, packet: videoPacket.pointer, name: settings.video.codec)
    } catch {
      fail(error)
      throw error
    }
  }

  /// Where the movie ends, on the frames' clock, as `AVAssetWriter.endSession(atSourceTime:)`:
  /// the last video frame lasts until then instead of a whole frame (a composition of
  /// 1.5 s at 25 fps ends half-way through its 38th frame). Call before the end.
  public func endSession(atSourceTime time: MediaTime) {
    outputLock.withLock { _ in sessionEnd = time }
  }

  /// Makes the thread that encodes give up at its next packet, even in `finish()`'s
  /// drain of the frames the encoder still holds (x264 keeps 60 at `placebo`, each
  /// slow): it cancels the writer, so that the outputs complete what they hold on that
  /// thread, and throws. Live outputs already finishing stop waiting for their queue or
  /// receiver. Safe from any thread (a signal's).
  public func interrupt() {
    interrupted.store(true, ordering: .releasing)
    bus.interruptLiveOutputs()
  }

  /// Receives every ready packet from `encoder` into the outbox (`publishMadePackets`
  /// hands them to the outputs once the encoder's lock is let go).
  func drain(
    encoder: UnsafeMutablePointer<AVCodecContext>, stream: EncodedStream,
    packet: UnsafeMutablePointer<AVPacket>, name: String
  ) throws(FFmpegError) {
    while true {
      if interrupted.load(ordering: .acquiring) {
        // What the encoder finished before the stop goes to the outputs first: a second
        // Ctrl-C cuts the drain, not what it already made (the flush of x264's lookahead
        // lands in the outbox all at once, and cancelling discards what is left there).
        try? publishMadePackets()
        cancel()
        throw FFmpegError(code: camfx_averror(EINTR), operation: "encoding", summary: "the encoding was interrupted")
      }
      let r = avcodec_receive_packet(encoder, packet)
      if r == CAMFX_AVERROR_EAGAIN || r == CAMFX_AVERROR_EOF { return }
      try check(r, "encoding with '\(name)'")
      defer { av_packet_unref(packet) }
      let encoded = try outputLock.withLock { _ throws(FFmpegError) -> EncodedPacket in
        switch state {
        case .writing: break
        case .failed(let e): throw e
        default: throw FFmpegError.invalid("write packet", "the writer is \(state)")
        }
        if packet.pointee.duration == 0, encoder.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
          encoder.pointee.framerate.num > 0
        {
          // libx264 leaves packet durations unset; the nominal frame duration gives the
          // last frame a length, so the file lasts frames × 1/fps rather than one frame less.
          packet.pointee.duration = av_rescale_q(1, av_inv_q(encoder.pointee.framerate), encoder.pointee.time_base)
        }
        if encoder.pointee.codec_type == AVMEDIA_TYPE_VIDEO, let end = sessionEnd, let start = sessionStart {
          let endTicks = (end - start).ticks(in: encoder.pointee.time_base)
          let pts = packet.pointee.pts
          if pts < endTicks && pts + packet.pointee.duration > endTicks { packet.pointee.duration = endTicks - pts }
        }
        return try EncodedPacket(stream: stream, movingFrom: packet)
      }
      outbox.add(encoded)
    }
  }

  /// Publishes what the encoders made, in order, with neither encoder's lock held: a
  /// file whose queue is full makes this wait, and only this. Sound goes on only as far
  /// as the picture has (AudioPacketHold).
  func publishMadePackets() throws(FFmpegError) {
    do throws(FFmpegError) {
      try outbox.publish { (encoded) throws(FFmpegError) in
        if encoded.stream.kind == .video {
          if audio != nil && encoded.isKeyframe {
            audioHold.keyframeComing(at: encoded.presentationSeconds)
            try audioHold.publishReady(bus.publish)
          }
          try bus.publish(encoded)
          audioHold.videoReached(encoded.presentationSeconds + encoded.durationSeconds)
        } else {
          audioHold.add(encoded)
        }
        if audio != nil { try audioHold.publishReady(bus.publish) }
      }
    } catch {
      fail(error)
      throw error
    }
  }

  /// Flushes the encoders and finishes every output: `.writing` → `.completed`, like
  /// `AVAssetWriter.finishWriting`.
  /// - Throws: `FFmpegError` (the writer has then failed; what was written is kept).
  public func finish() throws(FFmpegError) {
    switch status {
    case .writing: break
    case .unknown: try startWriting()  // an empty but valid movie
    case .failed(let e): throw e
    case .completed: return
    case .cancelled: throw FFmpegError.invalid("finish", "the writer was cancelled")
    }
    try videoLock.withLock { _ throws(FFmpegError) in try encodeVideo(nil) }
    try publishMadePackets()
    if audio != nil { try finishAudio() }
    try outputLock.withLock { _ throws(FFmpegError) in
      guard case .writing = state else {
        if case .failed(let e) = state { throw e }
        return
      }
    }
    do throws(FFmpegError) {
      try bus.finish()
      outputLock.withLock { _ in
        if case .writing = state { state = .completed }
      }
    } catch {
      fail(error)
      throw error
    }
  }

  /// Stops at once, without draining the encoders: → `.cancelled`, like
  /// `cancelWriting()`. The outputs complete what they already hold (a file that got
  /// no packet is never created).
  public func cancel() {
    let cancelled = outputLock.withLock { _ in
      switch state {
      case .unknown, .writing:
        state = .cancelled
        return true
      case .completed, .failed, .cancelled: return false
      }
    }
    if cancelled { endOutputs() }
  }

  /// Moves to `.failed(error)`; the outputs complete what they hold.
  func fail(_ error: FFmpegError) {
    let failed = outputLock.withLock { _ in
      switch state {
      case .unknown, .writing:
        state = .failed(error)
        return true
      case .completed, .failed, .cancelled: return false
      }
    }
    if failed { endOutputs() }
  }

  /// Cancels every output, keeping their figures. The sound still held is past the
  /// last picture they got: it stays out.
  private func endOutputs() {
    // What the video already reached goes in first (best effort: the outputs are
    // ending anyway).
    try? audioHold.publishReady(bus.publish)
    audioHold.discard()
    outbox.discard()
    bus.cancel()
  }
}
