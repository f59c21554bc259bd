import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
import CamfxPixelFormats
#if canImport(Glibc)
import Glibc
#endif

/// Reads any file libavformat opens and decodes it to BGRA frames and S16 PCM, like
/// `AVAssetReader` with a video and an audio output.
///
/// ```swift
/// let reader = try MovieReader(path: "in.mp4", audio: AudioOutputSettings(sampleRate: 48_000, channels: 2))
/// while let sample = try reader.nextSample() {
///   switch sample {
///   case .video(let frame): ...   // a VideoFrame (BGRA unless asked for yuv420p), stamped from the stream
///   case .audio(let pcm): ...     // interleaved S16
///   }
/// }
/// ```
///
/// - Every decoded frame is delivered once, in presentation order, with its own
///   timestamp (`best_effort_timestamp` in the stream's time base, kept exactly as a
///   `MediaTime`); none is dropped or repeated. Only a frame without any timestamp (raw
///   elementary streams) gets the previous one plus the nominal frame duration.
/// - Frames come from a `PixelBufferPool`; when all its buffers are still held
///   downstream, `nextSample` waits for one (back-pressure: a file source never drops).
///   If none comes back within a second, it allocates a fresh buffer rather than hang.
/// - Conversion to BGRA is camfx's own for BT.601 limited-range yuv420p (the usual
///   case) and libswscale's for the rest (with the stream's matrix); audio goes through
///   libswresample.
/// - Errors: a missing or unreadable file, a file libavformat cannot parse, a file with
///   no video stream, and a decoding error all throw `FFmpegError` with FFmpeg's text.
///
/// `nextFrame()` returns only video; audio met on the way is kept
/// for `takeAudio()`.
public final class MovieReader: MediaSource, @unchecked Sendable {
  // @unchecked Sendable: the reader is confined to whichever single thread calls it
  // (the pipeline's source stage); it is only handed over, never used concurrently.

  public let path: String
  public let geometry: FrameGeometry
  /// 1 / the stream's average frame rate, when the file states one.
  public let frameDuration: MediaTime?
  public var isLive: Bool { false }
  /// The container's duration, when known.
  public let duration: MediaTime?
  /// The video stream's own duration, when the file states it (a sound track that runs
  /// longer makes the container's longer).
  public let videoDuration: MediaTime?
  /// The video stream's first timestamp (`AVStream.start_time`), when the file states it:
  /// pass it to `MovieWriter.startSession(atSourceTime:)` to keep the file's timeline.
  public let videoStartTime: MediaTime?
  /// The stream's frame count as the container states it (0 when unknown).
  public let statedFrameCount: Int
  /// The codec names, e.g. "h264", "aac".
  public let videoCodecName: String
  public let audioCodecName: String?
  /// The rate and channel count of the PCM this reader delivers (nil: no audio).
  public let audioSampleRate: Int?
  public let audioChannels: Int?
  /// The clockwise turn (0, 90, 180 or 270 degrees) that shows the video upright, from
  /// the stream's display matrix (phone videos are stored sideways with one); 0 when it
  /// has none. As ffmpeg's autorotate, other angles count as the nearest of these.
  public let displayRotation: Int
  /// The decoder's pixel format, by FFmpeg's name (`yuv420p`, `yuyv422`, ...).
  public let pixelFormatName: String
  /// When the movie was recorded, in seconds since the Unix epoch, from its
  /// `creation_time` metadata (the file's, else the video stream's); nil when it has none.
  public let creationTime: Double?

  private let input: InputContext
  private let videoStreamIndex: Int32
  private let videoTimeBase: AVRational
  private let videoDecoder: FFmpegCodecContext
  private let audioStreamIndex: Int32?
  private let audioTimeBase: AVRational
  private let audioDecoder: FFmpegCodecContext?
  private var resampler: Resampler? = nil
  private let scaler: Swscale
  public let pool: PixelBufferPool
  private let packet: FFmpegPacket
  private let frame: FFmpegFrame
  private var pendingAudio: [PCMBuffer] = []
  private var lastVideoTime: MediaTime? = nil

  /// Decoders that may still hold output; the first is drained before reading on.
  private var draining: [Int32] = []
  private var endOfFile = false
  /// Video packets read since the start (nil after a seek): fewer than the file's
  /// index lists, at the end, means the file was cut short.
  private var videoPacketsRead: Int? = 0
  private var flushed = false

  /// Opens `path`, finds its best video stream (and audio stream if `audio` is given)
  /// and opens their decoders.
  /// - Parameters:
  ///   - audio: the PCM to deliver, or `nil` to ignore the file's audio.
  ///   - poolCapacity: decoded frames that may be in flight downstream at once.
  /// - Throws: `FFmpegError`, e.g. `cannot open 'x.mp4': No such file or directory`, or
  ///   `'x.wav' has no video stream`.
  public init(path: String, audio: AudioOutputSettings? = nil, poolCapacity: Int = 8) throws(FFmpegError) {
    self.path = path
    input = try InputContext(path: path)
    let ctx = input.context
    let v = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    if v < 0 {
      throw v == CAMFX_AVERROR_STREAM_NOT_FOUND
        ? FFmpegError(
          code: v, operation: "reading '\(path)'", message: "no video stream", summary: "'\(path)' has no video stream")
        : FFmpegError.cannot("read '\(path)'", code: v)
    }
    videoStreamIndex = v
    let vs = ctx.pointee.streams[Int(v)]!
    videoTimeBase = vs.pointee.time_base
    videoDecoder = try Self.openDecoder(for: vs, path: path)
    let vc = videoDecoder.pointer.pointee
    guard vc.width > 0, vc.height > 0 else {
      throw FFmpegError.cannot("read '\(path)'", code: CAMFX_AVERROR_INVALIDDATA, message: "its video stream has no frame size")
    }
    geometry = FrameGeometry(width: Int(vc.width), height: Int(vc.height))
    videoCodecName = String(cString: avcodec_get_name(vc.codec_id))
    let rate = vs.pointee.avg_frame_rate
    frameDuration = rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : nil
    statedFrameCount = Int(vs.pointee.nb_frames)
    let start = vs.pointee.start_time
    videoStartTime = start != CAMFX_AV_NOPTS_VALUE ? MediaTime(ticks: start, in: videoTimeBase) : nil
    duration = ctx.pointee.duration > 0 ? MediaTime(value: ctx.pointee.duration, timescale: 1_000_000) : nil
    videoDuration = vs.pointee.duration > 0 ? MediaTime(ticks: vs.pointee.duration, in: videoTimeBase) : nil
    displayRotation = Self.displayRotation(of: vs)
    creationTime = Self.creationTime(ctx.pointee.metadata) ?? Self.creationTime(vs.pointee.metadata)
    canDeliverYUV420Frames = YUV420Route(format: vc.pix_fmt, range: vc.color_range, matrix: vc.colorspace) != nil
    pixelFormatName = av_get_pix_fmt_name(AVPixelFormat(rawValue: vc.pix_fmt.rawValue)).map { String(cString: $0) } ?? "unknown"

    if let audio, case let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, v, nil, 0), a >= 0 {
      let stream = ctx.pointee.streams[Int(a)]!
      let decoder = try Self.openDecoder(for: stream, path: path)
      audioStreamIndex = a
      audioTimeBase = stream.pointee.time_base
      audioDecoder = decoder
      audioCodecName = String(cString: avcodec_get_name(decoder.pointer.pointee.codec_id))
      audioSampleRate = audio.sampleRate ?? Int(decoder.pointer.pointee.sample_rate)
      audioChannels = audio.channels ?? Int(decoder.pointer.pointee.ch_layout.nb_channels)
    } else {
      audioStreamIndex = nil
      audioTimeBase = AVRational(num: 1, den: 1)
      audioDecoder = nil
      audioCodecName = nil
      audioSampleRate = nil
      audioChannels = nil
    }
    // Streams we do not decode are not demuxed at all.
    for i in 0..<Int(ctx.pointee.nb_streams) where Int32(i) != videoStreamIndex && Int32(i) != audioStreamIndex {
      ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
    }
    scaler = Swscale(width: geometry.width, height: geometry.height, format: AV_PIX_FMT_BGRA)
    pool = PixelBufferPool(geometry: geometry, capacity: max(poolCapacity, 2))
    packet = try FFmpegPacket()
    frame = try FFmpegFrame()
  }

  /// `creation_time` of a metadata dictionary (ISO 8601 in UTC, as muxers write it:
  /// `2024-05-01T12:34:56.000000Z`), in seconds since the epoch.
  static func creationTime(_ metadata: OpaquePointer?) -> Double? {
    guard let entry = av_dict_get(metadata, "creation_time", nil, 0), let value = entry.pointee.value else { return nil }
    return parseISO8601(String(cString: value))
  }

  /// `YYYY-MM-DDTHH:MM:SS[.fraction][Z]` (a space for the `T` too), as UTC.
  static func parseISO8601(_ text: String) -> Double? {
    let parts = text.split(whereSeparator: { "-T :Z".contains($0) }).map(String.init)
    guard parts.count >= 6, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      let hour = Int(parts[3]), let minute = Int(parts[4]), let seconds = Double(parts[5]),
      (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), seconds < 61
    else { return nil }
    var t = tm()
    t.tm_year = Int32(year - 1900)
    t.tm_mon = Int32(month - 1)
    t.tm_mday = Int32(day)
    t.tm_hour = Int32(hour)
    t.tm_min = Int32(minute)
    t.tm_sec = Int32(seconds.rounded(.down))
    let whole = timegm(&t)
    guard whole != -1 else { return nil }
    return Double(whole) + (seconds - seconds.rounded(.down))
  }

  /// See `displayRotation`.
  static func displayRotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
    var size = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 9 * 4 else { return 0 }
    let counterClockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
    guard counterClockwise.isFinite else { return 0 }
    let clockwise = Int((-counterClockwise / 90).rounded()) * 90
    return (clockwise % 360 + 360) % 360
  }

  private static func openDecoder(for stream: UnsafeMutablePointer<AVStream>, path: String) throws(FFmpegError) -> FFmpegCodecContext {
    let par = stream.pointee.codecpar!
    let what = "decode the \(String(cString: avcodec_get_name(par.pointee.codec_id))) "
      + (par.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "sound" : "video") + " of '\(path)'"
    guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
      throw FFmpegError.cannot(what, code: CAMFX_AVERROR_DECODER_NOT_FOUND, message: "this FFmpeg has no decoder for it")
    }
    let decoder = try FFmpegCodecContext(codec: codec)
    try check(avcodec_parameters_to_context(decoder.pointer, par), cannot: what)
    decoder.pointer.pointee.pkt_timebase = stream.pointee.time_base
    // Each frame thread holds pictures of its own (10 decoder buffers at 1080p against
    // 4 with one thread), and up to 1080p one thread decodes H.264 faster than a
    // software encoder here encodes: a 1080p transcode took less CPU and 17 MB less
    // memory with one. Larger pictures get as many as are useful.
    let pixels = Int(par.pointee.width) * Int(par.pointee.height)
    decoder.pointer.pointee.thread_count = pixels <= 1920 * 1088 ? 1 : 0
    try check(avcodec_open2(decoder.pointer, codec, nil), cannot: what)
    return decoder
  }

  /// The next decoded video frame or audio chunk, or `nil` at the end of the file.
  /// - Throws: `FFmpegError` for a read or decode error.
  public func nextSample() throws(FFmpegError) -> MediaSample<PCMBuffer>? {
    while true {
      // 1. Output the decoders still hold.
      while let index = draining.first {
        if let sample = try receive(from: index) { return sample }
        draining.removeFirst()
      }
      if flushed { return nil }
      // 2. At the end, flush every decoder once.
      if endOfFile {
        flushed = true
        try check(avcodec_send_packet(videoDecoder.pointer, nil), "decoding '\(path)'")
        draining.append(videoStreamIndex)
        if let audioDecoder, let a = audioStreamIndex {
          try check(avcodec_send_packet(audioDecoder.pointer, nil), "decoding '\(path)'")
          draining.append(a)
        }
        continue
      }
      // 3. Read and send one packet.
      let r = av_read_frame(input.context, packet.pointer)
      if r == CAMFX_AVERROR_EOF {
        endOfFile = true
        // A file whose index lists more frames than its media holds was cut (a copy
        // that stopped, a crash of its writer): what was read is kept, and it fails.
        if let read = videoPacketsRead, statedFrameCount > 0, read < statedFrameCount {
          throw FFmpegError.invalid(
            "reading '\(path)'", "the file ends early: its index lists \(statedFrameCount) video frames, \(read) are there")
        }
        continue
      }
      try check(r, "reading '\(path)'")
      if packet.pointer.pointee.stream_index == videoStreamIndex, let read = videoPacketsRead { videoPacketsRead = read + 1 }
      defer { av_packet_unref(packet.pointer) }
      let index = packet.pointer.pointee.stream_index
      guard let decoder = decoder(for: index) else { continue }
      let s = avcodec_send_packet(decoder.pointer, packet.pointer)
      // Decoders are always drained before the next packet, so EAGAIN cannot happen;
      // a damaged packet is reported, as ffmpeg does, but not fatal on its own.
      if s < 0 && s != CAMFX_AVERROR_INVALIDDATA { try check(s, "decoding '\(path)'") }
      draining.append(index)
    }
  }

  /// Moves to the last keyframe at or before `time`, counted from the video's first
  /// timestamp (`videoStartTime`): decoding goes on from there, so frames (and sound)
  /// from before `time` still come, for a caller that cuts exactly where it wants.
  /// - Throws: `FFmpegError` when the file cannot seek.
  public func seek(to time: MediaTime) throws(FFmpegError) {
    let target = (videoStartTime ?? .zero) + time
    try check(av_seek_frame(input.context, videoStreamIndex, target.ticks(in: videoTimeBase), AVSEEK_FLAG_BACKWARD), "seeking in '\(path)'")
    avcodec_flush_buffers(videoDecoder.pointer)
    if let audioDecoder { avcodec_flush_buffers(audioDecoder.pointer) }
    resampler = nil
    draining = []
    endOfFile = false
    videoPacketsRead = nil
    flushed = false
    lastVideoTime = nil
    nextAudioTime = nil
    pendingAudio = []
  }

  private func decoder(for index: Int32) -> FFmpegCodecContext? {
    if index == videoStreamIndex { return videoDecoder }
    if index == audioStreamIndex { return audioDecoder }
    return nil
  }

  /// One decoded sample from the decoder of stream `index`, or nil when it needs input.
  private func receive(from index: Int32) throws(FFmpegError) -> MediaSample<PCMBuffer>? {
    guard let decoder = decoder(for: index) else { return nil }
    while true {
      let r = avcodec_receive_frame(decoder.pointer, frame.pointer)
      if r == CAMFX_AVERROR_EAGAIN { return nil }
      if r == CAMFX_AVERROR_EOF {
        if index == audioStreamIndex, let pcm = try flushResampler() { return .audio(pcm) }
        return nil
      }
      try check(r, "decoding '\(path)'")
      defer { av_frame_unref(frame.pointer) }
      if index == videoStreamIndex { return try videoSample() }
      if let pcm = try convertAudio() { return .audio(pcm) }
    }
  }

  /// Hands video on as yuv420p frames (`VideoFrame.yuv420`) instead of BGRA, for a
  /// pipeline that filters them as they are or converts them band by band itself
  /// (a `FramePath`): a decoded yuv420p picture (BT.601 or untagged,
  /// limited range) is passed on by reference, a YUYV or NV12 one (a camera recorded as
  /// rawvideo) or a full-range 4:2:0 or 4:2:2 one (Motion JPEG) is converted straight to
  /// yuv420p. Pictures of other formats still come as
  /// BGRA, as does a picture for which no pooled frame came back within a second.
  public var deliversYUV420Frames = false
  /// Run on each band of a picture this reader converts (`filterWhileConverting`).
  private var bandFilters: FilterChain?
  /// Made on first use: most readers never hand out yuv420p frames.
  private var decodedPool: YUV420FramePool?
  private var convertedPool: YUV420FramePool?

  /// True when the decoder's pictures are of a kind camfx passes on or converts to
  /// yuv420p itself (`YUV420Route`: yuv420p, YUYV and NV12 in limited range, full-range
  /// 4:2:0 and 4:2:2, BT.601 or untagged), so that asking for yuv420p frames avoids
  /// BGRA. Other movies (RGB, 4:4:4, BT.709 HD) hand on BGRA frames either way.
  public let canDeliverYUV420Frames: Bool

  /// Picture `f`'s route to yuv420p (`YUV420Route`), when it has this reader's size.
  private func route(_ f: AVFrame) -> YUV420Route? {
    guard Int(f.width) == geometry.width, Int(f.height) == geometry.height, f.linesize.0 > 0 else { return nil }
    return YUV420Route(f)
  }

  /// True when frame `f` is a yuv420p picture camfx passes on or converts itself.
  private func isPlainYUV420(_ f: AVFrame) -> Bool {
    route(f) == .asIs && f.linesize.1 > 0 && f.linesize.1 == f.linesize.2
  }

  /// How camfx converts picture `f` to yuv420p itself (YUYV, NV12, and the full-range
  /// 4:2:0 and 4:2:2 pictures a Motion-JPEG movie decodes to), else nil.
  private func yuv420Conversion(_ f: AVFrame) -> YUV420Conversion? {
    let d = f.data, l = f.linesize
    switch route(f) {
    case .yuyv?:
      guard let base = d.0 else { return nil }
      return .limitedRange(.yuyv(UnsafeRawPointer(base), bytesPerRow: Int(l.0)))
    case .nv12?:
      guard let luma = d.0, let chroma = d.1, l.1 > 0 else { return nil }
      return .limitedRange(
        .nv12(luma: UnsafeRawPointer(luma), lumaBytesPerRow: Int(l.0), chroma: UnsafeRawPointer(chroma), chromaBytesPerRow: Int(l.1)))
    case .fullRange?:
      return FullRangeYUVLayout(f).map { .fullRange($0) }
    case .asIs?, nil:
      return nil
    }
  }

  private enum YUV420Conversion {
    case limitedRange(YUVSourceLayout)
    case fullRange(FullRangeYUVLayout)

    /// Converts `picture`, and runs `bandFilters` on it band by band where the layout
    /// can; true when it did.
    func convert(to picture: YUV420Picture, filteringBandsWith bandFilters: FilterChain?) -> Bool {
      switch self {
      case .limitedRange(let layout):
        guard let bandFilters else {
          layout.convert(to: picture)
          return false
        }
        layout.convert(to: picture, filteringBandsWith: bandFilters)
        return true
      case .fullRange(let layout):
        layout.convert(to: picture)
        return false
      }
    }
  }

  /// The decoded picture in `frame` as a sample: passed on, or converted to BGRA.
  private func videoSample() throws(FFmpegError) -> MediaSample<PCMBuffer> {
    let time = presentationTime(of: frame.pointer)
    if deliversYUV420Frames {
      let deadline = Deadline(seconds: 1)
      if isPlainYUV420(frame.pointer.pointee) {
        if decodedPool == nil { decodedPool = try YUV420FramePool(geometry: geometry, capacity: pool.capacity, kind: .decoded) }
        guard let decoded = decodedPool else { preconditionFailure("made above") }
        if let passed = decoded.adopt(frame.pointer, presentationTime: time, shouldStop: { deadline.hasPassed }) {
          return .video(.yuv420(passed))
        }
      } else if let conversion = yuv420Conversion(frame.pointer.pointee) {
        if convertedPool == nil { convertedPool = try YUV420FramePool(geometry: geometry, capacity: pool.capacity, kind: .owned) }
        guard let converted = convertedPool else { preconditionFailure("made above") }
        if var out = try converted.acquire(presentationTime: time, shouldStop: { deadline.hasPassed }) {
          out.filteredWhileConverting = conversion.convert(to: out.picture, filteringBandsWith: bandFilters)
          return .video(.yuv420(out))
        }
      }
    }
    return .video(.bgra(try convertVideo(at: time)))
  }

  /// The frame's timestamp, or one frame after the previous frame's when it has none.
  private func presentationTime(of f: UnsafeMutablePointer<AVFrame>) -> MediaTime {
    var ts = f.pointee.best_effort_timestamp
    if ts == CAMFX_AV_NOPTS_VALUE { ts = f.pointee.pts }
    let time: MediaTime
    if ts != CAMFX_AV_NOPTS_VALUE {
      time = MediaTime(ticks: ts, in: videoTimeBase)
    } else {
      time = (lastVideoTime ?? .zero) + (lastVideoTime == nil ? .zero : (frameDuration ?? MediaTime(value: 1, timescale: 25)))
    }
    lastVideoTime = time
    return time
  }

  /// A moment `seconds` from now, for pool waits that give up (`{ deadline.hasPassed }`:
  /// a non-escaping closure, so the wait allocates nothing).
  private struct Deadline {
    let end: Double
    init(seconds: Double) { end = MonotonicClock.seconds() + seconds }
    var hasPassed: Bool { MonotonicClock.seconds() > end }
  }

  private func convertVideo(at time: MediaTime) throws(FFmpegError) -> PixelBuffer {
    let f = frame.pointer
    let buffer = acquireBuffer(presentationTime: time)
    if isPlainYUV420(f.pointee) {
      convertI420(f.pointee, into: buffer)
      return buffer
    }
    try scaler.convert(f, to: buffer)
    return buffer
  }

  /// A pooled buffer, waiting up to a second for one to come back; after that a new,
  /// unpooled buffer, so a caller that keeps every frame (in the same thread that
  /// reads) slows down instead of hanging forever.
  private func acquireBuffer(presentationTime: MediaTime) -> PixelBuffer {
    let deadline = Deadline(seconds: 1)
    let pooled = pool.acquire(presentationTime: presentationTime, shouldStop: { deadline.hasPassed })
    return pooled ?? PixelBuffer(width: geometry.width, height: geometry.height, presentationTime: presentationTime)
  }

  private func makeResampler() throws(FFmpegError) -> Resampler {
    if let resampler { return resampler }
    let d = audioDecoder!.pointer.pointee
    let r = try Resampler(
      inputRate: Int(d.sample_rate), inputChannels: Int(d.ch_layout.nb_channels), inputFormat: d.sample_fmt,
      outputRate: audioSampleRate!, outputChannels: audioChannels!, outputFormat: AV_SAMPLE_FMT_S16)
    resampler = r
    return r
  }

  private func convertAudio() throws(FFmpegError) -> PCMBuffer? {
    let f = frame.pointer
    let resampler = try makeResampler()
    let ts = f.pointee.best_effort_timestamp != CAMFX_AV_NOPTS_VALUE ? f.pointee.best_effort_timestamp : f.pointee.pts
    let time = ts != CAMFX_AV_NOPTS_VALUE ? MediaTime(ticks: ts, in: audioTimeBase) : nil
    let samples = try resampler.convertToInterleaved(
      planes: UnsafeMutableRawPointer(f.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
      frames: Int(f.pointee.nb_samples))
    return makePCM(samples, at: time)
  }

  /// pts of the next PCM chunk when the decoder gives none.
  private var nextAudioTime: MediaTime? = nil

  private func makePCM(_ samples: [Int16], at time: MediaTime?) -> PCMBuffer? {
    guard !samples.isEmpty, let rate = audioSampleRate, let channels = audioChannels else { return nil }
    let t = time ?? nextAudioTime ?? .zero
    let pcm = PCMBuffer(samples: samples, channels: channels, sampleRate: rate, presentationTime: t)
    nextAudioTime = t + pcm.duration
    return pcm
  }

  private func flushResampler() throws(FFmpegError) -> PCMBuffer? {
    guard let resampler else { return nil }
    let samples = try resampler.convertToInterleaved(planes: nil, frames: 0)
    return makePCM(samples, at: nil)
  }

  // MARK: Frames alone

  /// The next video frame, keeping any audio met on the way for `takeAudio()`.
  public func nextFrame() throws -> PixelBuffer? {
    while let sample = try nextSample() {
      switch sample {
      case .video(.bgra(let frame)): return frame
      case .video(.yuv420(let picture)): return bgra(from: picture)
      case .audio(let pcm): pendingAudio.append(pcm)
      }
    }
    return nil
  }

  /// As a `MediaSource`: from now on the frames are yuv420p where the picture allows.
  public func deliverYUV420Frames() { deliversYUV420Frames = true }

  /// As a `MediaSource`: the pictures this reader converts (YUYV, NV12) get `chain`
  /// band by band as they are converted.
  public func filterWhileConverting(_ chain: FilterChain) {
    precondition(chain.runsOnYUV420Bands && chain.inputGeometry == geometry, "a chain for yuv420p bands of \(geometry)")
    bandFilters = chain
  }

  /// True when the file has a sound track the reader decodes.
  public var hasAudio: Bool { audioSampleRate != nil }

  /// A passed-on picture converted after all, for `nextFrame()`'s BGRA-only callers.
  private func bgra(from picture: YUV420Frame) -> PixelBuffer {
    let buffer = acquireBuffer(presentationTime: picture.presentationTime)
    convertI420(picture.avFrame.pointee, into: buffer)
    return buffer
  }

  /// camfx's yuv420p → BGRA converter on a picture it takes (`isPlainYUV420`).
  private func convertI420(_ f: AVFrame, into buffer: PixelBuffer) {
    let d = f.data, l = f.linesize
    guard let y = d.0, let u = d.1, let v = d.2 else { preconditionFailure("a yuv420p picture without planes") }
    PixelConverter.convertI420(
      luma: y, lumaBytesPerRow: Int(l.0), cb: u, cr: v, chromaBytesPerRow: Int(l.1), to: buffer)
  }

  /// Audio decoded by `nextFrame()` calls so far (and forgets it).
  public func takeAudio() -> [PCMBuffer] {
    defer { pendingAudio.removeAll(keepingCapacity: true) }
    return pendingAudio
  }
}
