import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxMedia
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One fragment of the live view: a `prft` box (when the frame was captured), then
/// `moof` and `mdat` with one video frame and the sound that came before it.
public struct LiveFragment: Sendable {
  public let bytes: [UInt8]
  /// True when its frame is a keyframe: a viewer can start or resume here.
  public let isKeyframe: Bool
  /// The frame's decode time on the recording's timeline, seconds.
  public let decodeSeconds: Double
  /// When its frame was captured, nanoseconds since 1970 (UTC); nil before the
  /// recording's first frame is known.
  public let capturedNanoseconds: Int64?
}

/// The live view's muxer on the packet bus: fragmented MP4 as Media Source Extensions
/// take it, made once for every viewer. The init segment (`ftyp`, `moov`) comes first,
/// then one fragment per video frame as soon as the frame is encoded, so a viewer
/// waits for no more than the encoder:
///
///     bus ──▶ queue (drops late video) ──▶ worker ──▶ write() ──▶ movenc ──▶ onFragment
///
/// Its timeline is the recording's, one second later (a keyframe's B-frame delay and
/// AAC's priming start below zero, and `tfdt` cannot), with each track's first
/// fragment at its real time (`frag_discont`), so a viewer that joins at any keyframe
/// has sound and picture in step. Only what Chromium plays is taken: H.264 video,
/// AAC or Opus sound (`refusal(for:)` says why not otherwise).
///
/// `@unchecked Sendable`: everything but `wantsKeyframe` is touched by its worker only.
public final class LiveFragmentOutput: MovieOutput, @unchecked Sendable {
  /// Seconds added to every timestamp.
  static let timelineOffset = 1.0

  public var finishTimeout: Double? { 0.5 }
  public var delivery: OutputDelivery { .dropsLateVideo(afterSeconds: 1) }
  public var reconnects: Bool { false }
  public private(set) var bytesWritten: Int64 = 0
  public private(set) var videoPacketsWritten = 0
  public private(set) var videoEndSeconds: Double = 0

  /// The MIME type of the stream (`video/mp4; codecs="avc1.64001f,mp4a.40.2"`), known
  /// once the streams are.
  public private(set) var mimeType = ""

  private let captureNanoseconds: @Sendable (Double) -> Int64?
  private let onInitSegment: @Sendable ([UInt8]) -> Void
  private let onFragment: @Sendable (LiveFragment) -> Void
  private let wantsKeyframe = Atomic<Bool>(false)
  private var state: OutputReport.State = .waiting
  private var lastError: String?
  /// The muxer's stream of each bus stream, by the bus stream's index (nil: left out).
  private var muxerStream: [Int?] = []
  private var streams: [EncodedStream] = []
  private var context: UnsafeMutablePointer<AVFormatContext>?
  private var io: LiveFragmentIO?
  private let scratch: FFmpegPacket
  /// The previous video frame's decode time and the step to it, in the bus stream's
  /// ticks: the duration of a frame whose encoder left it unset.
  private var lastVideoDTS: Int64?
  private var videoStep: Int64 = 0

  /// - Parameters:
  ///   - captureNanoseconds: when the frame at a time of the recording (seconds) was
  ///     captured, nanoseconds since 1970; nil while unknown.
  ///   - onInitSegment: the init segment, once, before the first fragment.
  ///   - onFragment: each fragment, on the output's worker: it must not block.
  public init(
    captureNanoseconds: @escaping @Sendable (Double) -> Int64?, onInitSegment: @escaping @Sendable ([UInt8]) -> Void,
    onFragment: @escaping @Sendable (LiveFragment) -> Void
  ) throws(FFmpegError) {
    self.captureNanoseconds = captureNanoseconds
    self.onInitSegment = onInitSegment
    self.onFragment = onFragment
    scratch = try FFmpegPacket()
  }

  deinit { close() }

  public var report: OutputReport {
    OutputReport(
      name: "live view", kind: "live", state: state, bytes: bytesWritten, videoFrames: videoPacketsWritten,
      reconnects: 0, error: lastError)
  }

  /// Why a browser cannot play `streams` through Media Source Extensions (one line),
  /// or nil when it can.
  public static func refusal(for streams: [EncodedStream]) -> String? {
    guard let video = streams.first(where: { $0.kind == .video }) else { return "the recording has no video" }
    let codec = String(cString: avcodec_get_name(video.parameters.pointee.codec_id))
    guard codec == "h264" else {
      return "the live view plays H.264, and this recording's video is \(codec) (the MJPEG view shows it instead)"
    }
    return nil
  }

  /// The codecs parameter of MSE's MIME type for `streams`: `avc1.PPCCLL` from the
  /// H.264 sequence parameter set, `mp4a.40.N` from AAC's configuration, `opus`.
  public static func codecs(for streams: [EncodedStream]) -> [String] {
    var codecs: [String] = []
    for stream in streams {
      let p = stream.parameters.pointee
      let extradata = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
      switch p.codec_id {
      case AV_CODEC_ID_H264: codecs.append("avc1." + avcProfileLevel(extradata))
      case AV_CODEC_ID_AAC:
        let objectType = extradata.first.map { Int($0 >> 3) } ?? 2
        codecs.append("mp4a.40.\(objectType == 0 || objectType == 31 ? 2 : objectType)")
      case AV_CODEC_ID_OPUS: codecs.append("opus")
      default: break
      }
    }
    return codecs
  }

  /// MSE's MIME type for `streams`: `video/mp4; codecs="avc1.64001f,mp4a.40.2"`.
  public static func mimeType(for streams: [EncodedStream]) -> String {
    "video/mp4; codecs=\"" + codecs(for: streams).joined(separator: ",") + "\""
  }

  /// `PPCCLL` in hex: profile, constraint flags and level of the first sequence
  /// parameter set, from an `avcC` record or an Annex B global header (x264's).
  static func avcProfileLevel(_ extradata: [UInt8]) -> String {
    func hex(_ bytes: ArraySlice<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    if extradata.count >= 4, extradata[0] == 1 { return hex(extradata[1...3]) }
    var i = 0
    while i + 6 < extradata.count {
      if extradata[i] == 0, extradata[i + 1] == 0, extradata[i + 2] == 1, extradata[i + 3] & 0x1F == 7 {
        return hex(extradata[(i + 4)...(i + 6)])
      }
      i += 1
    }
    return "42e01f"  // constrained baseline 3.1: what a browser assumes of unknown H.264
  }

  public func prepare(streams: [EncodedStream]) throws(FFmpegError) {
    if let refusal = Self.refusal(for: streams) { throw FFmpegError.invalid("the live view", refusal) }
    self.streams = streams
    var next = 0
    muxerStream = streams.map { stream in
      let id = stream.parameters.pointee.codec_id
      let taken = stream.kind == .video ? id == AV_CODEC_ID_H264 : (id == AV_CODEC_ID_AAC || id == AV_CODEC_ID_OPUS)
      // One track of each kind: MSE plays one of each from one SourceBuffer.
      let first = !streams[..<stream.index].contains { $0.kind == stream.kind }
      guard taken, first else { return nil }
      defer { next += 1 }
      return next
    }
    let kept = streams.filter { muxerStream[$0.index] != nil }
    mimeType = Self.mimeType(for: kept)
  }

  public func requestsKeyframe(atSeconds seconds: Double) -> Bool { wantsKeyframe.exchange(false, ordering: .relaxed) }
  public var keyframeIntervalLimit: Double? { nil }
  public var stopRequest: String? { nil }
  public var fileFigures: FileOutputFigures? { nil }
  public func disconnect() {}
  public func interrupt() {}
  public func endingNote(for error: FFmpegError) -> String { error.description }

  /// Asks the encoder for a keyframe soon (a viewer waits to resume on one).
  public func requestKeyframe() { wantsKeyframe.store(true, ordering: .relaxed) }

  public func write(_ packet: EncodedPacket) throws(FFmpegError) {
    guard let muxerIndex = muxerStream[packet.stream.index] else { return }
    do throws(FFmpegError) {
      if context == nil {
        // The bus starts an output on a keyframe; sound before the first frame waits.
        guard packet.stream.kind == .video else { return }
        try open()
        state = .writing
      }
      try mux(packet, as: muxerIndex)
    } catch {
      state = .failed
      lastError = error.description
      throw error
    }
  }

  private func mux(_ encoded: EncodedPacket, as muxerIndex: Int) throws(FFmpegError) {
    guard let context, let io else { return }
    let stream = encoded.stream
    let packet = scratch.pointer
    try check(av_packet_ref(packet, encoded.pointer), "the live view")
    defer { av_packet_unref(packet) }
    let isVideo = stream.kind == .video
    let offset = av_rescale_q(
      Int64(Self.timelineOffset * 1_000_000), AVRational(num: 1, den: 1_000_000), stream.timeBase)
    if isVideo {
      let dts = packet.pointee.dts != CAMFX_AV_NOPTS_VALUE ? packet.pointee.dts : packet.pointee.pts
      if let last = lastVideoDTS, dts > last { videoStep = dts - last }
      if videoStep == 0, stream.frameRate.num > 0 {
        videoStep = max(1, av_rescale_q(1, AVRational(num: stream.frameRate.den, den: stream.frameRate.num), stream.timeBase))
      }
      lastVideoDTS = dts
      // A fragment of one frame takes its frame's duration from the packet.
      if packet.pointee.duration <= 0 { packet.pointee.duration = videoStep }
    }
    if packet.pointee.pts != CAMFX_AV_NOPTS_VALUE { packet.pointee.pts += offset }
    if packet.pointee.dts != CAMFX_AV_NOPTS_VALUE { packet.pointee.dts += offset }
    if packet.pointee.dts < 0 || packet.pointee.pts < 0 { return }  // sound from before the offset's reach
    let target = context.pointee.streams[muxerIndex]!
    let presentation = packet.pointee.pts != CAMFX_AV_NOPTS_VALUE ? packet.pointee.pts : packet.pointee.dts
    let mediaTime = av_rescale_q(presentation, stream.timeBase, target.pointee.time_base)
    av_packet_rescale_ts(packet, stream.timeBase, target.pointee.time_base)
    packet.pointee.stream_index = Int32(muxerIndex)
    try check(av_write_frame(context, packet), "the live view")
    guard isVideo else { return }
    // Each frame ends a fragment, with the sound queued before it.
    try check(av_write_frame(context, nil), "the live view")
    avio_flush(io.context)
    let captured = captureNanoseconds(encoded.presentationSeconds)
    var bytes: [UInt8] = []
    if let captured {
      bytes = ProducerReferenceTime(track: UInt32(muxerIndex + 1), capturedNanoseconds: captured, mediaTime: UInt64(max(0, mediaTime)))
        .encoded()
    }
    bytes += io.take()
    bytesWritten += Int64(bytes.count)
    videoPacketsWritten += 1
    videoEndSeconds = encoded.presentationSeconds
    onFragment(
      LiveFragment(
        bytes: bytes, isKeyframe: encoded.isKeyframe, decodeSeconds: encoded.decodeSeconds, capturedNanoseconds: captured))
  }

  /// Opens the muxer and hands the init segment over.
  private func open() throws(FFmpegError) {
    let io = try LiveFragmentIO()
    self.io = io
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_alloc_output_context2(&ctx, nil, "mp4", nil), "the live view")
    guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "the live view") }
    context = ctx
    ctx.pointee.pb = io.context
    ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    // The timeline is shifted here, once for all tracks (libavformat would shift on
    // whichever packet came first).
    ctx.pointee.avoid_negative_ts = 0
    try EncodedStream.add(streams.filter { muxerStream[$0.index] != nil }, to: ctx, operation: "the live view")
    let options = FFmpegDictionary()
    // `frag_discont`: each track's first fragment says its real start (`tfdt`), so a
    // viewer that joins mid-recording keeps sound and picture in step.
    try options.set("movflags", "+frag_custom+empty_moov+default_base_moof+skip_trailer+frag_discont")
    try options.set("use_editlist", "0")
    try check(avformat_write_header(ctx, &options.pointer), "the live view's header")
    avio_flush(io.context)
    onInitSegment(io.take())
  }

  public func finish() throws(FFmpegError) {
    close()
    if state != .failed { state = .finished }
  }

  public func cancel() {
    close()
    if state != .failed { state = .finished }
  }

  private func close() {
    if context != nil {
      avformat_free_context(context)
      context = nil
    }
    io = nil
  }
}

/// The memory a live view's muxer writes to: what it wrote since the last `take()`.
/// Not seekable, as a socket is: movenc then writes every box whole.
final class LiveFragmentIO {
  private(set) var context: UnsafeMutablePointer<AVIOContext>?
  fileprivate var written: [UInt8] = []

  init() throws(FFmpegError) {
    let size: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(size)) else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "the live view") }
    let opaque = Unmanaged.passUnretained(self).toOpaque()
    guard
      let ctx = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), size, 1, opaque, nil, liveFragmentIOWrite, nil)
    else {
      av_free(buffer)
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "the live view")
    }
    ctx.pointee.seekable = 0
    context = ctx
  }

  deinit { freeCustomIO(context) }

  /// What was written since the last call.
  func take() -> [UInt8] {
    defer { written.removeAll(keepingCapacity: true) }
    return written
  }
}

private func liveFragmentIOWrite(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32) -> Int32 {
  guard let opaque, let buffer, size >= 0 else { return camfx_averror(EINVAL) }
  let io = Unmanaged<LiveFragmentIO>.fromOpaque(opaque).takeUnretainedValue()
  io.written.append(contentsOf: UnsafeBufferPointer(start: buffer, count: Int(size)))
  return size
}
