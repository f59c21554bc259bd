import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A live stream from the packet bus: a network URL (RTMP, SRT, UDP ...), standard
/// output, or an HLS playlist (`StreamDestination`). It owns its muxer and its failure
/// policy; its queue and worker on the bus keep it from ever holding up the encoder or
/// the other outputs:
///
///     bus ──▶ queue (drops late video: OutputDelivery.live) ──▶ worker ──▶ write() ──▶ muxer ──▶ URL
///
/// - What it cannot send in time is dropped up to the next keyframe, counted in its
///   report.
/// - A network output that fails (the server restarts, the network goes down) is
///   disconnected and its worker tries again after 1, 2, 4 ... at most 30 s; it resumes
///   at the next keyframe with timestamps that start again at zero, as a new publish.
///   A pipe or an HLS output that fails ends; the recording goes on.
/// - `finish()` writes the trailer once the queue is sent (the worker gives it
///   `finishTimeout` seconds); `cancel()` stops at once. Blocking network calls are cut
///   short through libavformat's interrupt callback (`interrupt()`).
///
/// `@unchecked Sendable`: everything but the interrupt flag is touched by its worker
/// only (`PacketSubscription`).
public final class LiveStreamOutput: MovieOutput, @unchecked Sendable {
  public let destination: StreamDestination
  /// Seconds `finish()` may take to send the queue (and, for SRT, to see the end
  /// handed on: `waitUntilSRTReceiverHandsOnAll`) before the connection is cut.
  public var finishTimeout: Double? { 5 + Double(handOnMilliseconds.load(ordering: .relaxed)) / 1000 }
  /// The most an SRT stream's end waits for its receiver (its linger, its receiver's
  /// delay and a second), set once connected; 0 for anything else.
  private let handOnMilliseconds = Atomic<Int>(0)
  /// Seconds a blocked network read or write may take before the connection counts
  /// as lost.
  public var networkTimeout: Double = 5

  private let interruption = InterruptFlag()
  private var streams: [EncodedStream] = []
  private var state: OutputReport.State = .waiting
  private var lastError: String?
  public private(set) var bytesWritten: Int64 = 0
  public private(set) var videoPacketsWritten = 0
  public private(set) var videoEndSeconds: Double = 0
  private var connections = 0
  private var reconnectCount = 0
  /// True until the first packet after a reconnection has set `timestampOffsets`.
  private var resuming = false
  private let scratch: FFmpegPacket

  private var context: UnsafeMutablePointer<AVFormatContext>?
  /// The first failed write of a file the muxer opened itself (an HLS segment or
  /// playlist; `watchedClose`), 0 while none failed.
  private let ownFilesError = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  private var timestampOffsets: [Int64] = []

  public init(destination: StreamDestination) throws(FFmpegError) {
    self.destination = destination
    scratch = try FFmpegPacket()
    ownFilesError.initialize(to: 0)
  }

  deinit {
    closeContext()
    ownFilesError.deallocate()
  }

  public var delivery: OutputDelivery { .live }
  public var reconnects: Bool { destination.reconnects }

  public var report: OutputReport {
    OutputReport(
      name: destination.displayName, kind: destination.kind.rawValue, state: state, bytes: bytesWritten,
      videoFrames: videoPacketsWritten, reconnects: reconnectCount, error: lastError)
  }

  public func prepare(streams: [EncodedStream]) throws(FFmpegError) {
    self.streams = streams
    try Self.checkCodecs(streams, muxer: destination.containerMuxer, name: destination.displayName)
  }

  /// Refuses streams the container cannot hold (`avformat_query_codec`), before any
  /// connection is made.
  static func checkCodecs(_ streams: [EncodedStream], muxer: String, name: String) throws(FFmpegError) {
    guard let format = av_guess_format(muxer, nil, nil) else {
      throw FFmpegError.invalid("output '\(name)'", "libavformat has no '\(muxer)' muxer")
    }
    for stream in streams {
      let id = stream.parameters.pointee.codec_id
      let codec = String(cString: avcodec_get_name(id))
      // The containers camfx picks by itself, with what their muxers really write
      // (avformat_query_codec allows VP9 and AV1 in .mov, which the muxer then refuses,
      // and says nothing for MPEG-TS); any other by libavformat's word.
      let holds: Bool =
        switch muxer {
        case "mp4": ["h264", "hevc", "av1", "vp9", "mjpeg", "aac", "opus"].contains(codec)
        case "mov": ["h264", "hevc", "mjpeg", "aac"].contains(codec)
        case "flv": ["h264", "aac"].contains(codec)
        case "mpegts": ["h264", "hevc", "aac", "opus"].contains(codec)
        case "matroska": true
        default: avformat_query_codec(format, id, FF_COMPLIANCE_NORMAL) != 0
        }
      guard !holds else { continue }
      throw FFmpegError.invalid(
        "recording to '\(name)'",
        "the \(Self.containerName(muxer)) container cannot hold \(codec) (Matroska, .mkv, holds every codec)")
    }
  }

  /// The container's name as users know it.
  static func containerName(_ muxer: String) -> String {
    switch muxer {
    case "mp4": "MP4"
    case "mov": "QuickTime (.mov)"
    case "matroska": "Matroska"
    case "flv": "FLV (RTMP)"
    case "mpegts": "MPEG-TS"
    default: muxer
    }
  }

  public func write(_ packet: EncodedPacket) throws(FFmpegError) {
    do throws(FFmpegError) {
      if context == nil {
        state = connections == 0 ? .connecting : .reconnecting
        try connect()
        connections += 1
        if connections > 1 {
          reconnectCount += 1
          resuming = true
        }
        state = .writing
      }
      if resuming {
        // A new connection is a new stream: its timestamps start at this packet.
        resuming = false
        let micros = Int64((packet.decodeSeconds * 1e6).rounded())
        timestampOffsets = streams.map { av_rescale_q(micros, AVRational(num: 1, den: 1_000_000), $0.timeBase) }
      }
      try send(packet)
    } catch {
      lastError = error.description
      if !destination.reconnects { state = endsQuietly(error) ? .finished : .failed }
      throw error
    }
  }

  /// A pipe whose reader has gone (`| head`) is done, not broken.
  private func endsQuietly(_ error: FFmpegError) -> Bool {
    destination.kind == .pipe && error.code == camfx_averror(EPIPE)
  }

  public func endingNote(for error: FFmpegError) -> String {
    endsQuietly(error) ? "its reader has gone" : error.description
  }

  public func disconnect() {
    closeContext()
    state = .reconnecting
  }

  public func interrupt() { interruption.set() }

  public func finish() throws(FFmpegError) {
    defer { closeContext() }
    guard let context, !interruption.isSet else {
      if state != .failed { state = .finished }
      return
    }
    var failure: FFmpegError? = nil
    let r = av_write_trailer(context)
    if r < 0 { failure = FFmpegError(code: r, operation: "finishing '\(destination.displayName)'") }
    if r >= 0, let seconds = destination.srtLingerSeconds { waitUntilSRTReceiverHandsOnAll(context, lingerSeconds: seconds) }
    do throws(FFmpegError) { try checkOwnFiles("finishing '\(destination.displayName)'") } catch { failure = failure ?? error }
    if let failure {
      state = .failed
      lastError = failure.description
      throw failure
    }
    state = .finished
  }

  public func cancel() {
    closeContext()
    if state != .failed { state = .finished }
  }

  /// Keeps an SRT connection open until its receiver has handed on the end of the
  /// stream: until every byte sent is acknowledged (at most the linger), then for the
  /// receiver's delay and a second more, which lets a receiver that was kept off the
  /// CPU hand on what it holds. libavformat's SRT socket does not block, so closing it
  /// hands the linger to a libsrt thread, and the cleanup that follows at once stops
  /// that thread; a receiver also drops the packets it still holds (its delay after
  /// they were sent) when the connection closes. Either way the last packets were
  /// lost: seen in CI, and every time with a receiver whose latency is 2.5 s. Nothing
  /// is waited for when the socket cannot be found or asked, once it is no longer
  /// connected, or once `interrupt()` is called (a second Ctrl-C, `finishTimeout`).
  private func waitUntilSRTReceiverHandsOnAll(_ context: UnsafeMutablePointer<AVFormatContext>, lingerSeconds: Int) {
    let socket = camfx_srt_socket(context.pointee.pb)
    guard lingerSeconds > 0, socket >= 0 else { return }
    let waiting = { !self.interruption.isSet && camfx_srt_is_connected(socket) != 0 }
    let acknowledgedBy = ContinuousClock.now + .seconds(lingerSeconds)
    while ContinuousClock.now < acknowledgedBy, waiting(), camfx_srt_unacknowledged_bytes(socket) > 0 {
      usleep(5_000)
    }
    let delay = camfx_srt_receiver_delay_ms(socket)
    guard delay >= 0 else { return }
    let handedOnBy = ContinuousClock.now + .milliseconds(delay + 1000)
    while ContinuousClock.now < handedOnBy, waiting() { usleep(5_000) }
  }

  /// Sets `handOnMilliseconds` for a newly connected SRT stream.
  private func noteSRTHandOnTime(_ context: UnsafeMutablePointer<AVFormatContext>) {
    guard let linger = destination.srtLingerSeconds, linger > 0 else { return }
    let socket = camfx_srt_socket(context.pointee.pb)
    let delay = socket >= 0 ? camfx_srt_receiver_delay_ms(socket) : -1
    guard delay >= 0 else { return }
    handOnMilliseconds.store(linger * 1000 + Int(delay) + 1000, ordering: .relaxed)
  }

  /// Opens the muxer and its connection, and writes the container header.
  private func connect() throws(FFmpegError) {
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    let name = destination.displayName
    try check(
      avformat_alloc_output_context2(&ctx, nil, destination.muxer, destination.url),
      "opening '\(name)'")
    guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "opening '\(name)'") }
    context = ctx
    // A muxer that writes files of its own (HLS: segments and the playlist) closes
    // one that could not be written (a full disk) without saying so; this close does.
    ownFilesError.pointee = 0
    ctx.pointee.opaque = UnsafeMutableRawPointer(ownFilesError)
    ctx.pointee.io_close2 = watchedClose
    var callback = AVIOInterruptCB(callback: interruptCallback, opaque: Unmanaged.passUnretained(interruption).toOpaque())
    ctx.pointee.interrupt_callback = callback
    try EncodedStream.add(streams, to: ctx, operation: "opening '\(name)'")
    if ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
      let io = FFmpegDictionary()
      if destination.kind == .network { try io.set("rw_timeout", String(Int64(networkTimeout * 1e6))) }
      try destination.protocolOptions(into: io)
      try check(
        avio_open2(&ctx.pointee.pb, destination.url, AVIO_FLAG_WRITE, &callback, &io.pointer), "connecting to '\(name)'")
    }
    let options = FFmpegDictionary()
    try destination.muxerOptions(into: options)
    try check(avformat_write_header(ctx, &options.pointer), "writing the header to '\(name)'")
    noteSRTHandOnTime(ctx)
    timestampOffsets = Array(repeating: 0, count: streams.count)
  }

  /// Rescales one packet to the muxer's time base and writes it (the muxer takes it).
  private func send(_ encoded: EncodedPacket) throws(FFmpegError) {
    guard let context else { return }
    let stream = encoded.stream
    // The packet is shared with the other outputs: its timestamps change on a
    // reference of this output's own, which the muxer then takes.
    let packet = scratch.pointer
    try check(av_packet_ref(packet, encoded.pointer), "sending to '\(destination.displayName)'")
    defer { av_packet_unref(packet) }
    let offset = timestampOffsets[stream.index]
    if offset != 0 {
      if packet.pointee.pts != CAMFX_AV_NOPTS_VALUE { packet.pointee.pts -= offset }
      if packet.pointee.dts != CAMFX_AV_NOPTS_VALUE { packet.pointee.dts -= offset }
      // Sound from before the packet the stream resumed at stays out.
      if packet.pointee.pts < 0 { return }
    }
    let isVideo = stream.kind == .video
    let size = Int64(packet.pointee.size)
    let end = Double(packet.pointee.pts + offset + packet.pointee.duration) * av_q2d(stream.timeBase)
    let target = context.pointee.streams[stream.index]!
    av_packet_rescale_ts(packet, stream.timeBase, target.pointee.time_base)
    packet.pointee.stream_index = Int32(stream.index)
    try check(av_interleaved_write_frame(context, packet), "sending to '\(destination.displayName)'")
    try checkOwnFiles("writing '\(destination.displayName)'")
    bytesWritten += size
    if isVideo {
      videoPacketsWritten += 1
      videoEndSeconds = max(videoEndSeconds, end)
    }
  }

  /// Throws the first failed write of a file the muxer opened itself.
  private func checkOwnFiles(_ operation: String) throws(FFmpegError) {
    let code = ownFilesError.pointee
    if code < 0 { throw FFmpegError(code: code, operation: operation) }
  }

  private func closeContext() {
    guard let ctx = context else { return }
    context = nil
    if ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0, ctx.pointee.pb != nil {
      avio_closep(&ctx.pointee.pb)
    }
    avformat_free_context(ctx)
  }
}

/// Set to cut libavformat's blocking calls short (its `AVIOInterruptCB` asks it).
private final class InterruptFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  func set() { flag.store(true, ordering: .releasing) }
  var isSet: Bool { flag.load(ordering: .acquiring) }
}

/// libavformat's close of a file a muxer opened itself (`AVFormatContext.io_close2`),
/// which also keeps the first write that failed in the `Int32` at the context's
/// `opaque`: the HLS muxer ignores what closing a segment or its playlist returns.
private let watchedClose: @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVIOContext>?) -> Int32 = {
  context, pb in
  guard let pb else { return 0 }
  avio_flush(pb)
  let written = pb.pointee.error
  let closed = avio_close(pb)
  let failure = written < 0 ? written : closed
  if failure < 0, let slot = context?.pointee.opaque?.assumingMemoryBound(to: Int32.self), slot.pointee == 0 {
    slot.pointee = failure
  }
  return failure
}

private let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
  guard let opaque else { return 0 }
  return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().isSet ? 1 : 0
}
