import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// The `AVIOContext` a `MovieFileOutput`'s muxer writes through: libavformat's bytes
/// go to a file descriptor camfx owns, so that the output decides when they reach the
/// disk and what happens on an error.
///
/// What the muxer writes is staged in memory and written out by `commit()` (for a
/// fragmented file, once per fragment, followed by `fdatasync`), so a fragment reaches
/// the file in one `pwrite` and a crash leaves whole fragments. Seeks back into staged
/// bytes (libavformat patching a box size) change them in place; other seeks write the
/// stage out first.
///
/// With `insertsMarker`, the `FragmentedMovieMarker` box goes in right after the first
/// box (`ftyp`): libavformat's positions after it are shifted by its size, which is
/// safe for fragments whose offsets are relative to their `moof` (`default_base_moof`)
/// and an initial `moov` with no samples.
final class MovieFileIO {
  let fd: Int32
  let insertsMarker: Bool
  /// Write the stage out once it holds this much, without a sync (a non-fragmented file).
  var stageLimit = 4 << 20
  private(set) var context: UnsafeMutablePointer<AVIOContext>?

  private var stage: [UInt8] = []
  private var stageStart: Int64 = 0
  private var position: Int64 = 0
  private var logicalEnd: Int64 = 0
  /// Where the marker goes, in libavformat's positions (the end of `ftyp`).
  private var markerAt: Int64?
  private var markerBytes: [UInt8] = []
  private var markerWritten: [UInt8] = []
  /// The physical end of the file as last committed (everything before it is written).
  private(set) var committedEnd: Int64 = 0
  /// The first write error's errno, kept for the message ("disk full").
  private(set) var writeErrno: Int32 = 0
  /// Wall-clock seconds spent in `fdatasync`, and how many calls.
  private(set) var syncSeconds: Double = 0
  private(set) var syncs = 0

  init(fd: Int32, insertsMarker: Bool) throws(FFmpegError) {
    self.fd = fd
    self.insertsMarker = insertsMarker
    stage.reserveCapacity(1 << 20)
    let size: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(size)) else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "creating") }
    let opaque = Unmanaged.passUnretained(self).toOpaque()
    guard
      let ctx = avio_alloc_context(
        buffer.assumingMemoryBound(to: UInt8.self), size, 1, opaque, nil, movieFileIOWrite, movieFileIOSeek)
    else {
      av_free(buffer)
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "creating")
    }
    ctx.pointee.seekable = AVIO_SEEKABLE_NORMAL
    context = ctx
  }

  deinit { freeCustomIO(context) }

  /// Bytes in the file once everything staged is written.
  var size: Int64 { physical(logicalEnd) + (markerAt == nil && insertsMarker ? Int64(FragmentedMovieMarker.size) : 0) }

  /// Sets the marker's content (written at the next commit if it changed).
  func setMarker(_ marker: FragmentedMovieMarker) { markerBytes = marker.encoded() }

  /// Writes everything libavformat has written so far to the file and, with `sync`,
  /// makes it durable (`fdatasync`).
  /// - Throws: `FFmpegError` with the `errno` of a failed write (e.g. `ENOSPC`); the
  ///   file then ends at the last complete commit (a partial write is cut off).
  func commit(sync: Bool) throws(FFmpegError) {
    if let ctx = context { avio_flush(ctx) }
    if writeErrno != 0 { throw FFmpegError(code: camfx_averror(writeErrno), operation: "writing") }
    // A marker that changed (a track's first packet) reaches the disk before the
    // fragment that needs it, so no crash keeps a fragment without its track's delay.
    if insertsMarker, let at = markerAt, !markerBytes.isEmpty, markerBytes != markerWritten {
      try pwriteAll(markerBytes, at: at)
      markerWritten = markerBytes
      if sync { try syncFile() }
    }
    try writeStage()
    if sync { try syncFile() }
  }

  /// `fdatasync`, timed.
  private func syncFile() throws(FFmpegError) {
    let started = MonotonicClock.nanoseconds()
    let result = fdatasync(fd)
    let code = errno
    syncSeconds += Double(MonotonicClock.nanoseconds() - started) / 1e9
    syncs += 1
    if result != 0 {
      writeErrno = code
      throw FFmpegError(code: camfx_averror(code), operation: "syncing")
    }
  }

  private func physical(_ logical: Int64) -> Int64 {
    guard let at = markerAt, logical >= at else { return logical }
    return logical + Int64(FragmentedMovieMarker.size)
  }

  /// Writes the stage to the file (splitting it around the marker's place).
  private func writeStage() throws(FFmpegError) {
    guard !stage.isEmpty else { return }
    if insertsMarker && markerAt == nil {
      guard stageStart == 0, stage.count >= 8, stage[4...7].elementsEqual("ftyp".utf8) else {
        throw FFmpegError.invalid("writing", "the muxer did not start the file with 'ftyp'")
      }
      let ftypSize = Int64(stage[0]) << 24 | Int64(stage[1]) << 16 | Int64(stage[2]) << 8 | Int64(stage[3])
      markerAt = ftypSize
      if markerBytes.isEmpty { markerBytes = FragmentedMovieMarker().encoded() }
      try pwriteAll(markerBytes, at: ftypSize)
      markerWritten = markerBytes
    }
    let start = stageStart
    let end = stageStart + Int64(stage.count)
    if let at = markerAt, start < at, end > at {
      let split = Int(at - start)
      try pwriteAll(Array(stage[..<split]), at: start)
      try pwriteAll(Array(stage[split...]), at: at + Int64(FragmentedMovieMarker.size))
    } else {
      try pwriteAll(stage, at: physical(start))
    }
    committedEnd = max(committedEnd, physical(end))
    stageStart = end
    stage.removeAll(keepingCapacity: true)
  }

  private func pwriteAll(_ bytes: [UInt8], at offset: Int64) throws(FFmpegError) {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
      if n < 0 {
        let code = errno
        if code == EINTR { continue }
        writeErrno = code
        // Cut what this write added, so the file ends with the last complete commit.
        _ = ftruncate(fd, off_t(committedEnd))
        throw FFmpegError(code: camfx_averror(code), operation: "writing")
      }
      done += n
    }
  }

  // MARK: AVIO callbacks

  fileprivate func write(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
    if writeErrno != 0 { return camfx_averror(writeErrno) }
    let stageEnd = stageStart + Int64(stage.count)
    if position < stageStart || position > stageEnd {
      do throws(FFmpegError) { try writeStage() } catch { return error.code }
      stageStart = position
    }
    let offset = Int(position - stageStart)
    let overlap = min(count, stage.count - offset)
    if overlap > 0 {
      stage.withUnsafeMutableBufferPointer { s in
        for i in 0..<overlap { s[offset + i] = buffer[i] }
      }
    }
    if count > overlap {
      stage.append(contentsOf: UnsafeBufferPointer(start: buffer + overlap, count: count - overlap))
    }
    position += Int64(count)
    logicalEnd = max(logicalEnd, position)
    if stage.count >= stageLimit {
      do throws(FFmpegError) { try writeStage() } catch { return error.code }
    }
    return Int32(count)
  }

  fileprivate func seek(_ offset: Int64, whence: Int32) -> Int64 {
    switch whence & ~Int32(AVSEEK_FORCE) {
    case Int32(AVSEEK_SIZE): return logicalEnd
    case SEEK_SET: position = offset
    case SEEK_CUR: position += offset
    case SEEK_END: position = logicalEnd + offset
    default: return Int64(camfx_averror(EINVAL))
    }
    return position
  }
}

/// Frees an AVIO context made with `avio_alloc_context`, and its buffer (which
/// libavformat may have replaced by one of its own).
func freeCustomIO(_ context: UnsafeMutablePointer<AVIOContext>?) {
  guard let context else { return }
  av_freep(&context.pointee.buffer)
  var p: UnsafeMutablePointer<AVIOContext>? = context
  avio_context_free(&p)
}

private func movieFileIOWrite(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32) -> Int32 {
  guard let opaque, let buffer, size >= 0 else { return camfx_averror(EINVAL) }
  return Unmanaged<MovieFileIO>.fromOpaque(opaque).takeUnretainedValue().write(buffer, count: Int(size))
}

private func movieFileIOSeek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
  guard let opaque else { return Int64(camfx_averror(EINVAL)) }
  return Unmanaged<MovieFileIO>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
}
