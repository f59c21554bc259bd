import Foundation

/// A tiny PNG encoder for tests: writes exactly the colour type, bit depth and chunks
/// asked for (stored, uncompressed deflate blocks), so tests can feed the reader
/// every PNG variant with pixel values known in advance, and craft broken files.
enum PNGBytes {
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  enum ColorType: UInt8 {
    case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
  }

  /// A complete PNG. `rows` are the raw scanlines without the filter byte (packed
  /// samples for bit depths below 8, big-endian for 16).
  static func make(
    width: Int, height: Int, bitDepth: UInt8, colorType: ColorType, rows: [[UInt8]],
    palette: [(UInt8, UInt8, UInt8)]? = nil, transparency: [UInt8]? = nil
  ) -> [UInt8] {
    var out = signature
    out += ihdr(width: width, height: height, bitDepth: bitDepth, colorType: colorType)
    if let palette { out += chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] }) }
    if let transparency { out += chunk("tRNS", transparency) }
    var raw: [UInt8] = []
    for row in rows { raw.append(0); raw += row }
    out += chunk("IDAT", zlibStored(raw))
    out += chunk("IEND", [])
    return out
  }

  /// An IHDR chunk with a correct CRC.
  static func ihdr(width: Int, height: Int, bitDepth: UInt8, colorType: ColorType) -> [UInt8] {
    chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colorType.rawValue, 0, 0, 0])
  }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return be32(UInt32(data.count)) + typeBytes + data + be32(crc32(typeBytes + data))
  }

  static func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  /// A zlib stream of stored deflate blocks (no compression).
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var start = 0
    repeat {
      let n = min(65535, data.count - start)
      let final: UInt8 = start + n == data.count ? 1 : 0
      out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
      out += data[start..<start + n]
      start += n
    } while start < data.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
    return out + be32(b << 16 | a)
  }
}
