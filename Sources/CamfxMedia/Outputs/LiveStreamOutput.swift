import CFFmpeg
import CamfxCore
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A live stream written from a `MovieWriter`'s packets on a thread of its own: a
/// network URL (RTMP, SRT, UDP ...), standard output, or an HLS playlist
/// (`StreamDestination`). It owns its muxer and its failure policy, and it never holds
/// up the encoder or the other outputs:
///
///     encoder ──packets──▶ write() ──▶ PacketQueue ──▶ sender thread ──▶ muxer ──▶ URL
///                          (under the writer's lock:     (connects, sends,
///                           a reference, no copy)         reconnects)
///
/// - What the sender cannot send in time is dropped in whole GOPs (`PacketQueue`),
///   counted in `report`.
/// - A network output that fails (the server restarts, the network goes down) closes
///   its muxer and connects again after 1, 2, 4 ... at most 30 s, and resumes at the
///   next keyframe with timestamps that start again at zero, as a new publish.
///   A pipe or an HLS output that fails ends (`hasEnded`); the recording goes on.
/// - `finish()` sends what is queued (for at most `finishTimeout` seconds), then
///   writes the trailer; `cancel()` stops at once. Blocking network calls are cut short
///   through libavformat's interrupt callback.
///
/// `@unchecked Sendable`: the MovieOutput calls come under the writer's lock; the
/// sender thread touches only `context` and its own locals, and shares the queue and
/// the report with them under `shared`.
public final class LiveStreamOutput: MovieOutput, @unchecked Sendable {
  public let destination: StreamDestination
  /// Seconds `finish()` waits for the queue to drain before cutting the connection.
  public var finishTimeout: Double = 5
  /// Seconds a blocked network read or write may take before the connection counts
  /// as lost.
  public var networkTimeout: Double = 5

  private struct Shared {
    var state: OutputReport.State = .waiting
    var bytes: Int64 = 0
    var videoFrames = 0
    var reconnects = 0
    var error: String?
    var ended = false
    var connected = false
    var videoEnd: Double = 0
  }

  private let queue: Mutex<PacketQueue>
  private let shared = Mutex(Shared())
  private let wakeup = DispatchSemaphore(value: 0)
  private let exited = DispatchSemaphore(value: 0)
  private let interrupt = InterruptFlag()
  private let finishing = Atomic<Bool>(false)
  private let events: (@Sendable (String) -> Void)?
  private var streams: [EncodedStream] = []
  private var started = false
  private var done = false

  // The sender thread's own.
  private var context: UnsafeMutablePointer<AVFormatContext>?
  /// The first failed write of a file the muxer opened itself (an HLS segment or
  /// playlist; `watchedClose`), 0 while none failed.
  private let ownFilesError = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  private var timestampOffsets: [Int64] = []

  /// - Parameters:
  ///   - events: told, as one line each, when the output connects again, loses its
  ///     connection or ends (from the sender thread).
  public init(
    destination: StreamDestination, events: (@Sendable (String) -> Void)? = nil
  ) throws(FFmpegError) {
    self.destination = destination
    self.events = events
    queue = Mutex(try PacketQueue())
    ownFilesError.initialize(to: 0)
  }

  deinit {
    if started && !done { cancel() }
    ownFilesError.deallocate()
  }

  public var isLive: Bool { true }
  public var hasEnded: Bool { shared.withLock { $0.ended } }
  public var bytesWritten: Int64 { shared.withLock { $0.bytes } }
  public var videoPacketsWritten: Int { shared.withLock { $0.videoFrames } }
  public var videoEndSeconds: Double { shared.withLock { $0.videoEnd } }

  public var report: OutputReport {
    let (dropped, groups) = queue.withLock { ($0.droppedFrames, $0.droppedGroups) }
    return shared.withLock { s in
      OutputReport(
        name: destination.displayName, kind: destination.kind.rawValue, state: s.state, bytes: s.bytes,
        videoFrames: s.videoFrames, droppedFrames: dropped, droppedGroups: groups, reconnects: s.reconnects,
        error: s.error)
    }
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
    guard !done else { return }
    if !started { try startSender() }
    let (connected, ended) = shared.withLock { ($0.connected, $0.ended) }
    if ended { return }
    if try queue.withLock({ q throws(FFmpegError) in try q.offer(packet, connected: connected) }) {
      wakeup.signal()
    }
  }

  public func finish() throws(FFmpegError) {
    guard !done else { return }
    done = true
    guard started else {
      shared.withLock { $0.state = .finished }
      return
    }
    finishing.store(true, ordering: .releasing)
    wakeup.signal()
    if exited.wait(timeout: .now() + finishTimeout) == .timedOut {
      // The server or the pipe does not take what is left: cut it short.
      interrupt.set()
      wakeup.signal()
      if exited.wait(timeout: .now() + 2) == .timedOut {
        shared.withLock { $0.error = "did not finish: the connection did not close" }
      }
    }
  }

  public func cancel() {
    guard !done else { return }
    done = true
    guard started else {
      shared.withLock { $0.state = .finished }
      return
    }
    interrupt.set()
    finishing.store(true, ordering: .releasing)
    wakeup.signal()
    _ = exited.wait(timeout: .now() + 2)
  }

  // MARK: The sender thread

  private func startSender() throws(FFmpegError) {
    started = true
    shared.withLock { $0.state = .connecting }
    do {
      try NamedThread("camfx.send") { [self] in sendLoop() }.detach()
    } catch {
      done = true
      throw FFmpegError(code: camfx_averror(error.code), operation: "starting the sender for '\(destination.displayName)'")
    }
  }

  private var isFinishing: Bool { finishing.load(ordering: .acquiring) }

  private func sendLoop() {
    defer { exited.signal() }
    guard let packet = av_packet_alloc() else {
      end(failure: FFmpegError(code: camfx_averror(ENOMEM), operation: "sending to '\(destination.displayName)'"))
      return
    }
    defer {
      var p: UnsafeMutablePointer<AVPacket>? = packet
      av_packet_free(&p)
    }
    var backoff = Backoff(first: 1, maximum: 30)
    var connections = 0
    var resuming = false
    while !interrupt.isSet {
      if context == nil {
        if isFinishing && queue.withLock({ $0.isEmpty }) { break }
        do throws(FFmpegError) {
          try connect()
          connections += 1
          backoff.reset()
          resuming = connections > 1
          shared.withLock {
            $0.state = .writing
            $0.connected = true
            if connections > 1 { $0.reconnects += 1 }
          }
          if connections > 1 { events?("\(destination.displayName): connected again") }
        } catch {
          closeContext()
          if !destination.reconnects || isFinishing {
            end(failure: error)
            return
          }
          shared.withLock {
            $0.state = .reconnecting
            $0.error = error.description
          }
          let wait = backoff.next()
          events?("\(destination.displayName): \(error.description); trying again in \(Int(wait)) s")
          pause(seconds: wait)
          continue
        }
      }
      guard let stream = queue.withLock({ $0.pop(into: packet) }) else {
        if isFinishing { break }
        _ = wakeup.wait(timeout: .now() + 0.25)
        continue
      }
      do throws(FFmpegError) {
        if resuming {
          // A new connection is a new stream: its timestamps start at this keyframe.
          resuming = false
          let seconds = Double(packet.pointee.dts) * av_q2d(stream.timeBase)
          timestampOffsets = streams.map { av_rescale_q(Int64((seconds * 1e6).rounded()), AVRational(num: 1, den: 1_000_000), $0.timeBase) }
        }
        try send(packet, stream: stream)
      } catch {
        av_packet_unref(packet)
        closeContext()
        queue.withLock { $0.restartAtNextKeyframe() }
        shared.withLock {
          $0.connected = false
          $0.error = error.description
        }
        if !destination.reconnects || isFinishing {
          end(failure: error)
          return
        }
        shared.withLock { $0.state = .reconnecting }
        let wait = backoff.next()
        events?("\(destination.displayName): connection lost (\(error.message)); trying again in \(Int(wait)) s")
        pause(seconds: wait)
      }
    }
    var failure: FFmpegError? = nil
    if let context, !interrupt.isSet {
      let r = av_write_trailer(context)
      if r < 0 { failure = FFmpegError(code: r, operation: "finishing '\(destination.displayName)'") }
      do throws(FFmpegError) { try checkOwnFiles("finishing '\(destination.displayName)'") } catch { failure = failure ?? error }
    }
    closeContext()
    queue.withLock { $0.clear() }
    if let failure { end(failure: failure) } else { shared.withLock { $0.state = .finished } }
  }

  /// Waits `seconds`, or less when the output is told to finish or stop.
  private func pause(seconds: Double) {
    let deadline = MonotonicClock.seconds() + seconds
    while !isFinishing && !interrupt.isSet, case let left = deadline - MonotonicClock.seconds(), left > 0 {
      _ = wakeup.wait(timeout: .now() + min(left, 0.25))
    }
  }

  private func end(failure: FFmpegError) {
    // A pipe whose reader has gone (`| head`) is done, not broken.
    let readerLeft = destination.kind == .pipe && failure.code == camfx_averror(EPIPE)
    shared.withLock {
      $0.state = readerLeft ? .finished : .failed
      $0.error = failure.description
      $0.ended = true
      $0.connected = false
    }
    queue.withLock { $0.clear() }
    events?(
      "\(destination.displayName): " + (readerLeft ? "its reader has gone" : failure.description) + "; this output has stopped")
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
    var callback = AVIOInterruptCB(callback: interruptCallback, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
    ctx.pointee.interrupt_callback = callback
    for stream in streams {
      guard let s = avformat_new_stream(ctx, nil) else {
        throw FFmpegError(code: camfx_averror(ENOMEM), operation: "opening '\(name)'")
      }
      try check(avcodec_parameters_copy(s.pointee.codecpar, stream.parameters), "opening '\(name)'")
      s.pointee.time_base = stream.timeBase
      if stream.kind == .video { s.pointee.avg_frame_rate = stream.frameRate }
    }
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
    timestampOffsets = Array(repeating: 0, count: streams.count)
  }

  /// Rescales one packet to the muxer's time base and writes it (the muxer takes it).
  private func send(_ packet: UnsafeMutablePointer<AVPacket>, stream: EncodedStream) throws(FFmpegError) {
    guard let context else { return }
    let offset = timestampOffsets[stream.index]
    if offset != 0 {
      if packet.pointee.pts != CAMFX_AV_NOPTS_VALUE { packet.pointee.pts -= offset }
      if packet.pointee.dts != CAMFX_AV_NOPTS_VALUE { packet.pointee.dts -= offset }
      // Sound from before the keyframe the stream resumed at stays out.
      if packet.pointee.pts < 0 {
        av_packet_unref(packet)
        return
      }
    }
    let isVideo = stream.kind == .video
    let size = Int64(packet.pointee.size)
    let end = Double(packet.pointee.pts + offset + packet.pointee.duration) * av_q2d(stream.timeBase)
    let target = context.pointee.streams[stream.index]!
    av_packet_rescale_ts(packet, stream.timeBase, target.pointee.time_base)
    packet.pointee.stream_index = Int32(stream.index)
    try check(av_interleaved_write_frame(context, packet), "sending to '\(destination.displayName)'")
    try checkOwnFiles("writing '\(destination.displayName)'")
    shared.withLock {
      $0.bytes += size
      if isVideo {
        $0.videoFrames += 1
        $0.videoEnd = max($0.videoEnd, end)
      }
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
