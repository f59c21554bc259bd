#if canImport(Glibc)
import Glibc
#endif

/// A mask picture: a PGM (P5 or P2) of the recorded frame's size, white where motion
/// counts and black where it is ignored (as the `motion` daemon's `mask_file`).
public struct MotionMask: Sendable, Equatable {
  public let path: String
  public let width: Int
  public let height: Int
  /// One byte per pixel, 0–255 scaled from the file's maximum; ≥ 128 is watched.
  public let pixels: [UInt8]

  /// Reads the PGM at `path`.
  /// - Throws: `MotionOptionError` when it cannot be read or is not a PGM.
  public init(path: String) throws(MotionOptionError) {
    self.path = path
    guard let file = fopen(path, "rb") else {
      throw MotionOptionError("cannot read the mask '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
      if n <= 0 { break }
      bytes.append(contentsOf: chunk[0..<n])
      if bytes.count > 256 << 20 { throw MotionOptionError("the mask '\(path)' is larger than 256 MB") }
    }
    var reader = PGMReader(bytes: bytes)
    guard let magic = reader.word(), magic == "P5" || magic == "P2" else {
      throw MotionOptionError("the mask '\(path)' is not a PGM picture (P5 or P2; e.g. convert mask.png mask.pgm)")
    }
    guard let w = reader.number(), let h = reader.number(), let maximum = reader.number(), w > 0, h > 0,
      (1...65535).contains(maximum), w <= 32768, h <= 32768
    else {
      throw MotionOptionError("the mask '\(path)' has a damaged PGM header")
    }
    width = w
    height = h
    // The data must be there before anything that size is made: a few bytes of header
    // may claim 32768x32768.
    let wide = maximum > 255
    let start = reader.position + 1  // one whitespace byte after the maximum
    let needed = magic == "P5" ? w * h * (wide ? 2 : 1) : w * h * 2 - 1  // P2: a digit and a space each
    guard start + needed <= bytes.count + (magic == "P5" ? 0 : 1) else {
      throw MotionOptionError("the mask '\(path)' ends early: its header says \(w)x\(h)")
    }
    var values = [UInt8](repeating: 0, count: w * h)
    if magic == "P5" {
      for i in 0..<(w * h) {
        let value = wide ? Int(bytes[start + 2 * i]) << 8 | Int(bytes[start + 2 * i + 1]) : Int(bytes[start + i])
        values[i] = UInt8(min(255, value * 255 / maximum))
      }
    } else {
      for i in 0..<(w * h) {
        guard let value = reader.number() else {
          throw MotionOptionError("the mask '\(path)' ends early: its header says \(w)x\(h)")
        }
        guard (0...maximum).contains(value) else {
          throw MotionOptionError("the mask '\(path)' has a value \(value) outside 0...\(maximum)")
        }
        values[i] = UInt8(min(255, value * 255 / maximum))
      }
    }
    pixels = values
  }

  public init(path: String, width: Int, height: Int, pixels: [UInt8]) {
    self.path = path
    self.width = width
    self.height = height
    self.pixels = pixels
  }
}

/// Reads a PGM's header words, skipping whitespace and `#` comments.
private struct PGMReader {
  let bytes: [UInt8]
  var position = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  mutating func word() -> String? {
    skipSpace()
    var text = ""
    while position < bytes.count, !Self.isSpace(bytes[position]), text.count < 16 {
      text.append(Character(UnicodeScalar(bytes[position])))
      position += 1
    }
    return text.isEmpty ? nil : text
  }

  mutating func number() -> Int? { word().flatMap { Int($0) } }

  private mutating func skipSpace() {
    while position < bytes.count {
      if bytes[position] == UInt8(ascii: "#") {
        while position < bytes.count, bytes[position] != 10 { position += 1 }
      } else if Self.isSpace(bytes[position]) {
        position += 1
      } else {
        return
      }
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}
