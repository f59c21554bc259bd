import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A movie file written from a `MovieWriter`'s packets, under its final name from the
/// first packet on, as `AVCaptureMovieFileOutput` writes one: it owns its muxer and
/// its file, and what it has written is never deleted.
///
/// Crash safety (`fragmentInterval` > 0, the default): an MP4 or MOV is written as
/// fragments of at least that much media, each written in one piece and made durable
/// with `fdatasync` before the next, so a file cut at any moment (a crash, a power cut,
/// a full disk) plays up to its last complete fragment. `finish()` then turns it into
/// a regular MP4 in place (`FragmentedMovieFinisher`): the media is not copied.
/// Matroska is written in clusters of at most the same length, synced the same way.
/// With `fragmentInterval` 0 the file is written as a regular MP4, its index at the end.
///
///     init ──> .unknown ──first packet──> .writing ──finish()──> .completed
///                                            │  └────cancel()───> .cancelled (kept, finished)
///                                            └──error──────────> .failed(error) (kept, finished if it can be)
///
/// `@unchecked Sendable`: every method is called under the writer's output lock.
public final class MovieFileOutput: MovieOutput, @unchecked Sendable {
  public typealias Status = WritingStatus

  /// How the file is written.
  public struct Options: Sendable, Equatable {
    /// Seconds of media per fragment (MP4/MOV) or cluster (MKV); 0 writes a regular
    /// MP4 directly (not crash-safe).
    public var fragmentInterval: Double = 1
    /// Move the MP4/MOV index to the front after finishing (a second pass over the
    /// file), like `-movflags +faststart`.
    public var faststart = false
    /// Replace an existing regular file (never a FIFO, device or directory).
    public var overwrite = false
    /// Ask the recording to stop cleanly before the free space on the file's file
    /// system falls below this (`stopRequest`).
    public var minimumFreeBytes: Int64?
    /// Mux no packet once the file holds this many bytes (`--max-size`): the file ends
    /// within one packet of the limit however many frames are still in flight.
    public var maximumBytes: Int64?
    /// The wall-clock instant of the file's time zero, in seconds since 1970, written as
    /// its `creation_time` (MP4 and MOV keep whole seconds, Matroska more): files of
    /// cameras started together carry the same instant, so they line up. `nil` writes none.
    public var creationTime: Double?
    /// Where the file goes once it is finished (`--archive`): handed over after the
    /// last sync, whether the recording ended or was cancelled.
    public var archive: FileArchiveReference?
    public init(
      fragmentInterval: Double = 1, faststart: Bool = false, overwrite: Bool = false, minimumFreeBytes: Int64? = nil,
      maximumBytes: Int64? = nil
    ) {
      self.fragmentInterval = fragmentInterval
      self.faststart = faststart
      self.overwrite = overwrite
      self.minimumFreeBytes = minimumFreeBytes
      self.maximumBytes = maximumBytes
    }
  }

  public let path: String
  public let container: MovieContainer
  public let options: Options
  public private(set) var status: Status = .unknown
  /// What the in-place finish kept (fragmented MP4/MOV), once `.completed`.
  public private(set) var finishReport: FragmentedMovieFinisher.Report?
  public private(set) var stopRequest: String?

  private var streams: [EncodedStream] = []
  private var context: UnsafeMutablePointer<AVFormatContext>?
  private var io: MovieFileIO?
  private var fd: Int32 = -1
  private let packet: FFmpegPacket
  /// The last video packet, until the next one gives it its duration.
  private let heldVideo: FFmpegPacket
  private var heldVideoDTS: Int64?
  private var heldVideoEnd: Double = 0
  private var marker = FragmentedMovieMarker()
  private var nextCutSeconds: Double?
  private var finishedBytes: Int64 = 0
  private var freeSpace: FreeSpaceCheck?
  /// The file's bytes after the header, and the packet bytes given to the muxer since:
  /// the muxer holds a fragment in memory until it is cut, and its interleaving queue
  /// holds packets even across a cut, so what reached the file says too little.
  private var headerBytes: Int64 = 0
  private var muxedPacketBytes: Int64 = 0
  /// Video packets muxed, and where the last one ends (seconds).
  public private(set) var videoPacketsWritten = 0
  public private(set) var videoEndSeconds: Double = 0
  /// Seconds spent making fragments durable (`fdatasync`), and how many there were.
  public private(set) var syncSeconds: Double = 0
  public private(set) var syncs = 0

  public var fileFigures: FileOutputFigures? {
    FileOutputFigures(indexSeconds: finishReport?.elapsedSeconds, syncSeconds: syncSeconds, syncs: syncs)
  }

  /// Checks the container; creates nothing.
  /// - Throws: `MediaSettingsError` for an unsupported extension.
  public init(path: String, options: Options = Options()) throws {
    self.path = path
    self.options = options
    container = try MovieContainer(path: path)
    packet = try FFmpegPacket()
    heldVideo = try FFmpegPacket()
    freeSpace = options.minimumFreeBytes.map { FreeSpaceCheck(path: path, minimumBytes: $0) }
  }

  deinit {
    if context != nil { cancel() }
  }

  private var isFragmented: Bool { options.fragmentInterval > 0 }

  public var bytesWritten: Int64 { io.map { max($0.size, headerBytes + muxedPacketBytes) } ?? finishedBytes }

  public var report: OutputReport {
    var error: String? = nil
    if case .failed(let e) = status { error = e.description }
    return OutputReport(
      name: path, kind: "file", state: OutputReport.State(status), bytes: bytesWritten,
      videoFrames: videoPacketsWritten, error: error)
  }

  public func prepare(streams: [EncodedStream]) throws(FFmpegError) {
    try LiveStreamOutput.checkCodecs(streams, muxer: container.muxerName, name: path)
    self.streams = streams
  }

  public func write(_ encoded: EncodedPacket) throws(FFmpegError) {
    switch status {
    case .unknown: try open()
    case .writing: break
    case .failed(let e): throw e
    case .completed, .cancelled: throw FFmpegError.invalid("write '\(path)'", "the file is already \(status)")
    }
    guard let context else { return }
    if let maximum = options.maximumBytes, bytesWritten >= maximum { return }
    do throws(FFmpegError) {
      if encoded.stream.kind == .video, stopRequest == nil, var check = freeSpace {
        if check.isLow(atMediaSeconds: encoded.decodeSeconds) {
          stopRequest = "free space on '\(check.directory)' fell below --min-free \(check.limitText)"
        }
        freeSpace = check
      }
      try check(av_packet_ref(packet.pointer, encoded.pointer), "writing")
      let stream = context.pointee.streams[encoded.stream.index]!
      av_packet_rescale_ts(packet.pointer, encoded.stream.timeBase, stream.pointee.time_base)
      packet.pointer.pointee.stream_index = Int32(encoded.stream.index)
      let track = UInt32(encoded.stream.index + 1)
      if marker.firstDecodeTimes[track] == nil, packet.pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE {
        marker.firstDecodeTimes[track] = packet.pointer.pointee.dts
      }
      guard encoded.stream.kind == .video else {
        try mux(packet.pointer)
        return
      }
      // Video waits for the next frame, which tells how long it lasts: a frame before
      // a gap (a camera that was away) lasts until the frame after it. A fragment
      // cannot be changed once written, so without this the gap would go missing.
      let dts = packet.pointer.pointee.dts
      if heldVideoDTS != nil {
        let held = heldVideo.pointer
        if dts > held.pointee.dts { held.pointee.duration = dts - held.pointee.dts }
        try muxHeldVideo()
      }
      if isFragmented {
        let t = encoded.decodeSeconds
        if let cut = nextCutSeconds, t >= cut {
          try writeFragment()
          nextCutSeconds = t + options.fragmentInterval
        } else if nextCutSeconds == nil {
          nextCutSeconds = t + options.fragmentInterval
        }
      }
      av_packet_move_ref(heldVideo.pointer, packet.pointer)
      heldVideoDTS = dts
      heldVideoEnd = encoded.presentationSeconds + encoded.durationSeconds
    } catch {
      fail(error)
      throw failure
    }
  }

  /// Hands one packet (in its stream's time base) to the muxer, which takes its data.
  private func mux(_ p: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
    guard let context else { return }
    muxedPacketBytes += Int64(p.pointee.size)
    try check(av_interleaved_write_frame(context, p), "writing")
  }

  /// Muxes the video packet that waited for the next one.
  private func muxHeldVideo() throws(FFmpegError) {
    guard heldVideoDTS != nil else { return }
    heldVideoDTS = nil
    try mux(heldVideo.pointer)
    videoPacketsWritten += 1
    videoEndSeconds = max(videoEndSeconds, heldVideoEnd)
  }

  /// Ends the current fragment and makes everything written so far durable.
  private func writeFragment() throws(FFmpegError) {
    guard let context, let io else { return }
    try check(av_write_frame(context, nil), "writing")
    io.setMarker(marker)
    try io.commit(sync: true)
  }

  public func finish() throws(FFmpegError) {
    switch status {
    case .unknown: try open()  // an empty but valid movie
    case .writing: break
    case .failed(let e): throw e
    case .completed: return
    case .cancelled: throw FFmpegError.invalid("finish '\(path)'", "the output was cancelled")
    }
    do throws(FFmpegError) {
      try complete()
      status = .completed
    } catch {
      fail(error)
      throw failure
    }
    options.archive?.archive.add(path)
  }

  public func cancel() {
    switch status {
    case .writing:
      do throws(FFmpegError) {
        try complete()
        status = .cancelled
        options.archive?.archive.add(path)
      } catch {
        fail(error)
      }
    case .unknown: status = .cancelled
    case .completed, .failed, .cancelled: break
    }
  }

  /// Writes the trailer, syncs, finishes a fragmented MP4 in place, applies faststart,
  /// and closes the file.
  private func complete() throws(FFmpegError) {
    guard let context, let io else { return }
    try muxHeldVideo()
    try check(av_write_trailer(context), "finishing")
    io.setMarker(marker)
    try io.commit(sync: true)
    if isFragmented && container.isISOBMFF {
      do throws(MP4FormatError) {
        keep(try FragmentedMovieFinisher.finish(fd: fd))
      } catch {
        throw FFmpegError.invalid("finishing '\(path)'", error.description)
      }
    }
    closeFile()
    if options.faststart && container.isISOBMFF {
      do throws(MP4FormatError) {
        try MP4Faststart.apply(path: path)
      } catch {
        throw FFmpegError.invalid("faststart '\(path)'", error.description)
      }
    }
    var st = stat()
    if stat(path, &st) == 0 { finishedBytes = Int64(st.st_size) }
  }

  /// The error that failed the output (for the `throw` after `fail`).
  private var failure: FFmpegError {
    if case .failed(let e) = status { return e }
    return FFmpegError.invalid("write '\(path)'", "the output is \(status)")
  }

  /// Moves to `.failed` and keeps what was written: a fragmented MP4 is cut back to
  /// its last complete fragment and finished if there is room for the index.
  private func fail(_ error: FFmpegError) {
    guard case .writing = status else {
      if case .unknown = status { status = .failed(named(error)) }
      return
    }
    status = .failed(named(error))
    if fd >= 0, isFragmented, container.isISOBMFF {
      // The finisher leaves a torn last fragment out of the index itself.
      if let report = (try? FragmentedMovieFinisher.finish(fd: fd)) ?? (try? FragmentedMovieFinisher.contents(fd: fd)) {
        keep(report)
      }
    }
    closeFile()
  }

  /// Takes the finished file's own account of its video: packets that were muxed but
  /// never reached it (a full disk) are not in it.
  private func keep(_ report: FragmentedMovieFinisher.Report) {
    finishReport = report
    guard !report.wasFinished, report.videoFrames < videoPacketsWritten else { return }
    videoPacketsWritten = report.videoFrames
    videoEndSeconds = report.videoSeconds
  }

  /// The error as a user reads it: the file's name, and "disk full" for ENOSPC/EDQUOT.
  private func named(_ error: FFmpegError) -> FFmpegError {
    let code = io?.writeErrno ?? 0
    if code == ENOSPC || code == EDQUOT || error.code == camfx_averror(ENOSPC) || error.code == camfx_averror(EDQUOT) {
      return FFmpegError(
        code: camfx_averror(ENOSPC), operation: "writing '\(path)'",
        message: "disk full; kept everything up to the last complete fragment")
    }
    if error.summary != nil || error.operation.contains(path) { return error }
    // "writing" → "writing 'x.mp4'"; "setting option 'movflags'" → "... for 'x.mp4'".
    let operation = error.operation.contains("'") ? "\(error.operation) for '\(path)'" : "\(error.operation) '\(path)'"
    return FFmpegError(code: error.code, operation: operation, message: error.message)
  }

  // MARK: Opening

  /// Creates the file and writes the container header.
  private func open() throws(FFmpegError) {
    do throws(FFmpegError) {
      fd = try Self.create(path, overwrite: options.overwrite)
      let io = try MovieFileIO(fd: fd, insertsMarker: isFragmented && container.isISOBMFF)
      self.io = io
      var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
      try check(avformat_alloc_output_context2(&ctx, nil, container.muxerName, path), "creating")
      guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "creating") }
      context = ctx
      ctx.pointee.pb = io.context
      ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
      // Timestamps go in as the encoders made them (AAC's priming starts below zero):
      // libavformat's shifting would be decided on whichever packet comes first and
      // stretch the other track's first sample. The encoders' delays go into the
      // marker and become edit lists when the file is finished.
      // (Matroska cannot store negative times: there libavformat shifts the file.)
      if container.isISOBMFF { ctx.pointee.avoid_negative_ts = 0 }
      if let instant = self.options.creationTime {
        try check(av_dict_set(&ctx.pointee.metadata, "creation_time", Self.iso8601(instant), 0), "creating")
      }
      try EncodedStream.add(streams, to: ctx, operation: "creating")
      let options = FFmpegDictionary()
      if isFragmented {
        if container.isISOBMFF {
          try options.set("movflags", "+frag_custom+empty_moov+default_base_moof+skip_trailer")
        } else {
          try options.set("cluster_time_limit", String(Int(self.options.fragmentInterval * 1000)))
        }
      }
      try check(avformat_write_header(ctx, &options.pointer), "writing the header of")
      if options.count > 0 {
        throw FFmpegError.invalid("writing the header of", "the \(container.muxerName) muxer ignored an option")
      }
      io.stageLimit = isFragmented ? 256 << 20 : 4 << 20
      try io.commit(sync: isFragmented)
      headerBytes = io.size
      status = .writing
    } catch {
      // Nothing was recorded yet: leave nothing behind.
      let created = fd >= 0
      closeFile()
      if created { unlink(path) }
      status = .failed(named(error))
      throw failure
    }
  }

  /// `instant` (seconds since 1970) as libavformat takes a `creation_time`:
  /// `2026-11-28T09:30:00.250000Z`.
  static func iso8601(_ instant: Double) -> String {
    var seconds = time_t(instant.rounded(.down))
    let micros = Int(((instant - Double(seconds)) * 1e6).rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
    let head = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let fraction = String(micros)
    return head + "." + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
  }

  /// Opens `path` for writing, refusing anything but a regular file (a FIFO or device
  /// is never replaced or unlinked).
  static func create(_ path: String, overwrite: Bool) throws(FFmpegError) -> Int32 {
    var st = stat()
    if lstat(path, &st) == 0 || stat(path, &st) == 0 {
      if st.st_mode & S_IFMT != S_IFREG {
        throw FFmpegError.invalid("open '\(path)'", "not a regular file (camfx writes movies only to regular files)")
      }
      if !overwrite {
        throw FFmpegError(code: camfx_averror(EEXIST), operation: "open '\(path)'", message: "the file already exists")
      }
    }
    let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | (overwrite ? 0 : O_EXCL)
    let fd = Glibc.open(path, flags, 0o644)
    guard fd >= 0 else { throw FFmpegError(code: camfx_averror(errno), operation: "open '\(path)'") }
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw FFmpegError.invalid("open '\(path)'", "not a regular file (camfx writes movies only to regular files)")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    // `camfx repair` (or another recording) keeps its hands off a file being written.
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      close(fd)
      throw FFmpegError.invalid("open '\(path)'", "another program is writing it (it is locked)")
    }
    if overwrite, ftruncate(fd, 0) != 0 {
      let code = errno
      close(fd)
      throw FFmpegError(code: camfx_averror(code), operation: "truncate '\(path)'")
    }
    return fd
  }

  private func closeFile() {
    if let context {
      avformat_free_context(context)
      self.context = nil
    }
    if let io {
      finishedBytes = io.size
      syncSeconds += io.syncSeconds
      syncs += io.syncs
      self.io = nil
    }
    // What the file holds, not what was handed to it (a write that failed, a finish).
    var st = stat()
    if fd >= 0, fstat(fd, &st) == 0 { finishedBytes = Int64(st.st_size) }
    if fd >= 0 {
      close(fd)
      fd = -1
    }
  }
}
