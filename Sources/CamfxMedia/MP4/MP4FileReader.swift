#if canImport(Glibc)
import Glibc
#endif

/// Reads boxes from an open file with `pread`, so the writer's own descriptor can be
/// read without moving its position.
struct MP4FileReader {
  let fd: Int32
  let fileSize: Int64

  /// A top-level (or nested) box's place in the file.
  struct BoxHeader {
    var type: FourCC
    var offset: Int64
    var size: Int64
    var headerSize: Int
    var end: Int64 { offset + size }
    var payloadOffset: Int64 { offset + Int64(headerSize) }
  }

  init(fd: Int32) throws(MP4FormatError) {
    var st = stat()
    guard fstat(fd, &st) == 0 else { throw MP4FormatError("cannot stat the file: \(String(cString: strerror(errno)))") }
    self.fd = fd
    fileSize = Int64(st.st_size)
  }

  /// `count` bytes at `offset`, or fewer at the end of the file.
  func read(at offset: Int64, count: Int) throws(MP4FormatError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw MP4FormatError("read failed: \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      done += n
    }
    return Array(bytes.prefix(done))
  }

  /// The box header at `offset`, or nil when fewer than 8 bytes are left or the size
  /// field is impossible. A box may still extend past the end of the file (`end > fileSize`).
  func boxHeader(at offset: Int64) throws(MP4FormatError) -> BoxHeader? {
    let bytes = try read(at: offset, count: 16)
    guard bytes.count >= 8 else { return nil }
    var r = MP4ByteReader(bytes)
    let size32 = try r.u32()
    let type = FourCC(rawValue: try r.u32())
    var size = Int64(size32)
    var headerSize = 8
    if size32 == 1 {
      guard bytes.count >= 16 else { return nil }
      size = Int64(bitPattern: try r.u64())
      headerSize = 16
    } else if size32 == 0 {
      size = fileSize - offset
    }
    // A size that cannot be (negative, or past any file) ends the walk, as an incomplete box would.
    guard size >= Int64(headerSize), size <= Int64.max - offset else { return nil }
    return BoxHeader(type: type, offset: offset, size: size, headerSize: headerSize)
  }

  /// The whole box (header included), which must lie inside the file.
  func readBox(_ header: BoxHeader, limit: Int = 256 << 20) throws(MP4FormatError) -> [UInt8] {
    guard header.end <= fileSize else { throw MP4FormatError("'\(header.type)' box at \(header.offset) is cut off") }
    guard header.size <= Int64(limit) else { throw MP4FormatError("'\(header.type)' box at \(header.offset) is too large") }
    return try read(at: header.offset, count: Int(header.size))
  }
}

/// The children of a box held in memory: (type, range of the whole child in `bytes`).
func mp4Children(of bytes: [UInt8], payloadStart: Int, end: Int? = nil) throws(MP4FormatError) -> [(type: FourCC, range: Range<Int>)] {
  var result: [(FourCC, Range<Int>)] = []
  var position = payloadStart
  let end = end ?? bytes.count
  while position + 8 <= end {
    var r = MP4ByteReader(bytes, at: position)
    var size = Int(try r.u32())
    let type = FourCC(rawValue: try r.u32())
    if size == 1 {
      guard let wide = Int(exactly: try r.u64()) else { throw MP4FormatError("'\(type)' box at \(position) has an impossible size") }
      size = wide
    } else if size == 0 {
      size = end - position
    }
    guard size >= 8, size <= end - position else { throw MP4FormatError("'\(type)' box at \(position) overruns its parent") }
    result.append((type, position..<(position + size)))
    position += size
  }
  return result
}
