#if canImport(Glibc)
import Glibc
#endif

/// What `text=` says, parsed once: literal text with strftime fields (`%Y`, `%H`, ...,
/// expanded for the frame's capture time in local time) and camfx's own fields:
///
///     %{frame}   the frame's number, from 0
///     %{pts}     the frame's timestamp as hh:mm:ss.mmm
///     %{fps}     frames per second, measured over the last second or so
///     %%         a percent sign (strftime's)
///
/// `expand` writes the UTF-8 text of one frame into a buffer made once, so drawing a
/// text allocates nothing per frame.
struct TextTemplate: Sendable {
  enum Part: Sendable {
    /// Text without fields, as UTF-8.
    case literal([UInt8])
    /// Text with strftime fields, NUL-terminated.
    case strftime([CChar])
    case frame
    case pts
    case fps
  }

  let parts: [Part]
  /// The most bytes one expansion may take.
  static let capacity = 1024

  /// - Throws: `TemplateError` for `%{...}` with an unknown name.
  init(_ text: String) throws(TemplateError) {
    var parts: [Part] = []
    var literal = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "%{") {
      literal += rest[..<open.lowerBound]
      guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
        throw TemplateError(reason: "'%{' without a closing '}'")
      }
      let name = rest[open.upperBound..<close]
      let field: Part
      switch name {
      case "frame": field = .frame
      case "pts": field = .pts
      case "fps": field = .fps
      default: throw TemplateError(reason: "unknown field %{\(name)} (known: %{frame}, %{pts}, %{fps})")
      }
      if !literal.isEmpty { parts.append(Self.part(literal)) }
      literal = ""
      parts.append(field)
      rest = rest[rest.index(after: close)...]
    }
    literal += rest
    if !literal.isEmpty { parts.append(Self.part(literal)) }
    self.parts = parts
  }

  private static func part(_ text: String) -> Part {
    text.contains("%") ? .strftime(Array(text.utf8CString)) : .literal(Array(text.utf8))
  }

  /// True when the text is the same on every frame.
  var isConstant: Bool {
    parts.allSatisfy {
      if case .literal = $0 { return true }
      return false
    }
  }

  /// Writes the text for one frame into `buffer` and returns its length in bytes.
  /// - Parameters:
  ///   - seconds: the capture time, in seconds since the epoch (for strftime).
  ///   - utc: show it in UTC rather than local time.
  ///   - pts: the frame's timestamp in seconds.
  func expand(
    into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, seconds: Double, utc: Bool = false, frame: Int, pts: Double,
    fps: Double
  ) -> Int {
    var length = 0
    var clock = time_t(seconds.rounded(.down))
    var local = tm()
    if utc { gmtime_r(&clock, &local) } else { localtime_r(&clock, &local) }
    for part in parts {
      let room = capacity - length
      guard room > 1 else { break }
      switch part {
      case .literal(let bytes):
        let count = min(bytes.count, room - 1)
        bytes.withUnsafeBufferPointer { (buffer + length).update(from: $0.baseAddress!, count: count) }
        length += count
      case .strftime(let format):
        // strftime writes nothing when the result does not fit: the part is left out.
        let written = format.withUnsafeBufferPointer { f in
          buffer.withMemoryRebound(to: CChar.self, capacity: capacity) { b in strftime(b + length, room, f.baseAddress!, &local) }
        }
        length += written
      case .frame:
        length += Self.writeDecimal(frame, width: 1, into: buffer + length, room: room)
      case .pts:
        let millis = max(0, Int((pts * 1000).rounded()))
        let h = millis / 3_600_000, m = millis / 60_000 % 60, s = millis / 1000 % 60, ms = millis % 1000
        length += Self.writeDecimal(h, width: 2, into: buffer + length, room: room)
        func field(_ separator: Character, _ value: Int, _ width: Int) {
          guard capacity - length > width + 1, let byte = separator.asciiValue else { return }
          buffer[length] = byte
          length += 1
          length += Self.writeDecimal(value, width: width, into: buffer + length, room: capacity - length)
        }
        field(":", m, 2)
        field(":", s, 2)
        field(".", ms, 3)
      case .fps:
        let tenths = max(0, Int((fps * 10).rounded()))
        length += Self.writeDecimal(tenths / 10, width: 1, into: buffer + length, room: room)
        if capacity - length > 2 {
          buffer[length] = UInt8(ascii: ".")
          buffer[length + 1] = UInt8(ascii: "0") + UInt8(tenths % 10)
          length += 2
        }
      }
    }
    return length
  }

  /// `value` in decimal, zero-padded to `width` digits; returns the bytes written (0 when
  /// it does not fit in `room - 1`).
  static func writeDecimal(_ value: Int, width: Int, into out: UnsafeMutablePointer<UInt8>, room: Int) -> Int {
    var digits = 1, rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    let count = max(digits, width)
    guard count < room else { return 0 }
    var v = value
    for i in stride(from: count - 1, through: 0, by: -1) {
      out[i] = UInt8(ascii: "0") + UInt8(v % 10)
      v /= 10
    }
    return count
  }
}

/// A `text=` value that cannot be expanded.
struct TemplateError: Error {
  var reason: String
}
