/// Big-endian reading and writing of ISO BMFF box contents, on plain byte arrays.
///
/// A box is `size(4) type(4) [largesize(8) when size == 1] payload`; a full box's
/// payload starts with `version(1) flags(3)`.
struct MP4ByteReader {
  let bytes: [UInt8]
  var position: Int

  init(_ bytes: [UInt8], at position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  var remaining: Int { bytes.count - position }

  mutating func u8() throws(MP4FormatError) -> UInt8 {
    guard remaining >= 1 else { throw MP4FormatError("box ends early") }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func u32() throws(MP4FormatError) -> UInt32 {
    guard remaining >= 4 else { throw MP4FormatError("box ends early") }
    defer { position += 4 }
    return UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16 | UInt32(bytes[position + 2]) << 8
      | UInt32(bytes[position + 3])
  }

  mutating func u64() throws(MP4FormatError) -> UInt64 {
    let high = try u32()
    return UInt64(high) << 32 | UInt64(try u32())
  }

  /// `version(1) flags(3)` of a full box.
  mutating func versionAndFlags() throws(MP4FormatError) -> (version: UInt8, flags: UInt32) {
    let word = try u32()
    return (UInt8(word >> 24), word & 0xFF_FFFF)
  }

  mutating func skip(_ count: Int) throws(MP4FormatError) {
    guard count >= 0, remaining >= count else { throw MP4FormatError("box ends early") }
    position += count
  }
}

/// Appends big-endian fields and whole boxes to a byte array.
struct MP4ByteWriter {
  var bytes: [UInt8] = []

  mutating func u8(_ v: UInt8) { bytes.append(v) }
  mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
  mutating func u32(_ v: UInt32) {
    bytes.append(UInt8(v >> 24)); bytes.append(UInt8((v >> 16) & 0xFF))
    bytes.append(UInt8((v >> 8) & 0xFF)); bytes.append(UInt8(v & 0xFF))
  }
  mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
  mutating func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(v & 0xFFFF_FFFF)) }
  mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
  mutating func type(_ t: FourCC) { u32(t.rawValue) }
  mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

  /// Writes a box of `type` whose payload `body` writes; the size is filled in after.
  mutating func box(_ t: FourCC, _ body: (inout MP4ByteWriter) -> Void) {
    let start = bytes.count
    u32(0)
    type(t)
    body(&self)
    Self.patchSize(&bytes, at: start, size: bytes.count - start)
  }

  /// A full box: `version(1) flags(3)` then `body`.
  mutating func fullBox(_ t: FourCC, version: UInt8, flags: UInt32 = 0, _ body: (inout MP4ByteWriter) -> Void) {
    box(t) { w in
      w.u32(UInt32(version) << 24 | flags)
      body(&w)
    }
  }

  static func patchSize(_ bytes: inout [UInt8], at start: Int, size: Int) {
    let s = UInt32(size)
    bytes[start] = UInt8(s >> 24)
    bytes[start + 1] = UInt8((s >> 16) & 0xFF)
    bytes[start + 2] = UInt8((s >> 8) & 0xFF)
    bytes[start + 3] = UInt8(s & 0xFF)
  }
}

/// A box type, as its four ASCII characters (`moov`, `trak`, ...).
struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  let rawValue: UInt32
  init(rawValue: UInt32) { self.rawValue = rawValue }
  init(stringLiteral text: String) {
    var v: UInt32 = 0
    for byte in text.utf8.prefix(4) { v = v << 8 | UInt32(byte) }
    rawValue = v
  }
  var description: String {
    let chars = [24, 16, 8, 0].map { UInt8((rawValue >> UInt32($0)) & 0xFF) }
    return String(decoding: chars.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  }
}

/// A file that is not the MP4 camfx expected, or a box that does not parse.
public struct MP4FormatError: Error, CustomStringConvertible, Sendable, Equatable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
