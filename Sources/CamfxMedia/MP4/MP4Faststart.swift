#if canImport(Glibc)
import Glibc
#endif

/// Moves a finished MP4's index (`moov`) from the end to the front, so a player can
/// start before the whole file has arrived (`-movflags +faststart`). A second pass
/// over the file: the result is written next to it and renamed into place, so an
/// interruption leaves the original as it was.
///
///     ftyp | … | mdat | moov   ──▶   ftyp | moov′ | … | mdat      (chunk offsets + |moov′|)
package enum MP4Faststart {
  package static func apply(path: String) throws(MP4FormatError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw MP4FormatError("cannot open '\(path)': \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let file = try MP4FileReader(fd: fd)
    var boxes: [MP4FileReader.BoxHeader] = []
    var position: Int64 = 0
    while position < file.fileSize, let header = try file.boxHeader(at: position) {
      boxes.append(header)
      position = header.end
    }
    guard let ftyp = boxes.first, ftyp.type == "ftyp", let moovHeader = boxes.last, moovHeader.type == "moov",
      moovHeader.end == file.fileSize
    else { throw MP4FormatError("the index is not at the end of the file") }
    let moov = try file.readBox(moovHeader)
    // The index grows if 32-bit chunk offsets must become 64-bit ones; its own size is
    // the shift, so settle both.
    var wide = false
    var size = moov.count
    var shifted: [UInt8] = []
    for _ in 0..<4 {
      let (bytes, overflow) = try shift(moov, by: Int64(size), wide: wide)
      if overflow && !wide {
        wide = true
        continue
      }
      shifted = bytes
      if bytes.count == size { break }
      size = bytes.count
    }
    guard shifted.count == size else { throw MP4FormatError("the index cannot be moved") }

    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) + "/" } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let temporary = "\(directory).\(name).camfx-faststart"
    let out = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard out >= 0 else { throw MP4FormatError("cannot create '\(temporary)': \(String(cString: strerror(errno)))") }
    var ok = false
    defer {
      close(out)
      if !ok { unlink(temporary) }
    }
    var written: Int64 = 0
    func emit(_ bytes: [UInt8]) throws(MP4FormatError) {
      try FragmentedMovieFinisher.write(out, bytes, at: written)
      written += Int64(bytes.count)
    }
    try emit(try file.readBox(ftyp))
    try emit(shifted)
    var copy = ftyp.end
    while copy < moovHeader.offset {
      let chunk = try file.read(at: copy, count: Int(min(Int64(1 << 20), moovHeader.offset - copy)))
      guard !chunk.isEmpty else { throw MP4FormatError("the file changed while it was rewritten") }
      try emit(chunk)
      copy += Int64(chunk.count)
    }
    try FragmentedMovieFinisher.sync(out)
    guard rename(temporary, path) == 0 else {
      throw MP4FormatError("cannot replace '\(path)': \(String(cString: strerror(errno)))")
    }
    ok = true
  }

  /// The `moov` with every chunk offset moved by `delta` (as `co64` when `wide`), and
  /// whether a 32-bit offset overflowed.
  static func shift(_ moov: [UInt8], by delta: Int64, wide: Bool) throws(MP4FormatError) -> ([UInt8], overflow: Bool) {
    var overflow = false
    func rewrite(_ box: [UInt8], _ range: Range<Int>, type: FourCC) throws(MP4FormatError) -> [UInt8] {
      let containers: Set<FourCC> = ["moov", "trak", "mdia", "minf", "stbl"]
      if containers.contains(type) {
        var w = MP4ByteWriter()
        var children: [UInt8] = []
        for child in try mp4Children(of: box, payloadStart: range.lowerBound + 8, end: range.upperBound) {
          children += try rewrite(box, child.range, type: child.type)
        }
        w.box(type) { $0.append(children) }
        return w.bytes
      }
      if type == "stco" || type == "co64" {
        var r = MP4ByteReader(box, at: range.lowerBound + 12)
        let count = try r.u32()
        var offsets: [Int64] = []
        for _ in 0..<count { offsets.append((type == "co64" ? Int64(bitPattern: try r.u64()) : Int64(try r.u32())) + delta) }
        let useWide = wide || type == "co64"
        if !useWide && (offsets.last ?? 0) > Int64(UInt32.max) { overflow = true }
        var w = MP4ByteWriter()
        w.fullBox(useWide ? "co64" : "stco", version: 0) { w in
          w.u32(count)
          for o in offsets { if useWide { w.u64(UInt64(o)) } else { w.u32(UInt32(truncatingIfNeeded: o)) } }
        }
        return w.bytes
      }
      return Array(box[range])
    }
    let result = try rewrite(moov, 0..<moov.count, type: "moov")
    return (result, overflow)
  }
}
