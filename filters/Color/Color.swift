#if canImport(Glibc)
import Glibc
#endif
import CamfxCore

/// Brightness, contrast, saturation and gamma, with the ranges and meaning of ffmpeg's
/// `eq` filter, which it matches sample for sample on yuv420p pictures.
///
///     camfx snapshot --filter color=brightness=0.1:contrast=1.3:saturation=1.5 -o vivid.png
///
/// Each luma sample `Y` (0...255) becomes `lut(Y)` and each chroma sample `C` becomes
/// `lut'(C)`; `lut'` is `lut` with `contrast = saturation`, `brightness = 0`, `gamma = 1`.
/// The settings are taken as single-precision floats, as ffmpeg takes them. `lut` is the
/// identity for `contrast = 1`, `brightness = 0`, `gamma = 1`; else, with `gamma = 1`
/// and `|contrast| < 7.9`, fixed point:
///
///     c = ⌊4096 · contrast⌋,  b = ⌊⌊100 · brightness + 100⌋ · 511 / 200⌋ − 128 − ⌊c / 32⌋
///     lut(x) = clamp(⌊x · c / 4096⌋ + b, 0, 255)
///
/// otherwise floating point, with `v = x / 255`:
///
///     v' = contrast · (v − 0.5) + 0.5 + brightness
///     lut(x) = 0 if v' ≤ 0, else min(255, ⌊256 · v'^(1/gamma)⌋)
///
/// (ffmpeg's `vf_eq.c`, with `gamma_weight` 1). BGRA frames are converted
/// to BT.601 limited-range Y, Cb, Cr per pixel, given the same tables, and converted
/// back, so both paths mean the same thing (for colours that stay inside RGB: the BGRA
/// path clamps the others).
public struct Color: RowLocalYUV420Filter {
  public static let name = "color"
  public static let summary = "Brightness, contrast, saturation and gamma, as ffmpeg's eq."
  public static let example = "camfx snapshot --filter color=brightness=0.1:contrast=1.3:saturation=1.5 -o vivid.png"
  public static let options: [FilterOption] = [
    FilterOption("brightness", .number(-1...1), default: "0", help: "added to luma, in units of full scale"),
    FilterOption("contrast", .number(-1000...1000), default: "1", help: "luma scaled around mid-grey"),
    FilterOption("saturation", .number(0...3), default: "1", help: "chroma scaled around neutral; 0 is grey"),
    FilterOption("gamma", .number(0.1...10), default: "1", help: "luma raised to 1/gamma"),
  ]

  public let brightness: Double
  public let contrast: Double
  public let saturation: Double
  public let gamma: Double
  /// The tables, made once.
  let lumaTable: [UInt8]
  let chromaTable: [UInt8]
  /// The tables' fixed-point forms (`fixedPoint`), when both have one (gamma 1): the
  /// BGRA path then computes 16 pixels at a time instead of looking each one up.
  let linearLuma: (c: Int32, b: Int32)?
  let linearChroma: (c: Int32, b: Int32)?

  public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1, gamma: Double = 1) {
    self.brightness = brightness
    self.contrast = contrast
    self.saturation = saturation
    self.gamma = gamma
    // ffmpeg keeps the settings as single-precision floats, which shows in the tables
    // (brightness -0.2 is -0.200000003).
    func single(_ d: Double) -> Double { Double(Float(d)) }
    let (c, b, g, s) = (single(contrast), single(brightness), single(gamma), single(saturation))
    lumaTable = Self.table(contrast: c, brightness: b, gamma: g)
    chromaTable = Self.table(contrast: s, brightness: 0, gamma: 1)
    linearLuma = Self.vectorForm(Self.fixedPoint(contrast: c, brightness: b, gamma: g))
    linearChroma = Self.vectorForm(Self.fixedPoint(contrast: s, brightness: 0, gamma: 1))
  }

  public init(options: FilterOptions) throws {
    self.init(
      brightness: options.number("brightness") ?? 0, contrast: options.number("contrast") ?? 1,
      saturation: options.number("saturation") ?? 1, gamma: options.number("gamma") ?? 1)
  }

  /// `lut`'s fixed-point form `(c, b)`, `clamp(⌊x · c / 4096⌋ + b)` (the identity is
  /// `(4096, 0)`), or nil when it takes the floating-point one.
  static func fixedPoint(contrast: Double, brightness: Double, gamma: Double) -> (c: Int, b: Int)? {
    if contrast == 1 && brightness == 0 && gamma == 1 { return (4096, 0) }
    guard gamma == 1 && abs(contrast) < 7.9 else { return nil }
    let c = Int(contrast * 4096)
    return (c, Int(100 * brightness + 100) * 511 / 200 - 128 - c / 32)
  }

  /// A fixed-point form in the SIMD path's 32-bit lanes. A brightness far outside −1…1
  /// (the option's range; the initializer takes any) is left to the tables, where the
  /// sums cannot overflow.
  static func vectorForm(_ form: (c: Int, b: Int)?) -> (c: Int32, b: Int32)? {
    guard let form, abs(form.b) < 1 << 20 else { return nil }
    return (Int32(form.c), Int32(form.b))
  }

  /// `lut` of the type's documentation.
  static func table(contrast: Double, brightness: Double, gamma: Double) -> [UInt8] {
    if let form = fixedPoint(contrast: contrast, brightness: brightness, gamma: gamma) {
      return (0..<256).map { x in UInt8(min(max((x * form.c) >> 12 + form.b, 0), 255)) }
    }
    return (0..<256).map { i in
      var v = Double(i) / 255
      v = contrast * (v - 0.5) + 0.5 + brightness
      if v <= 0 { return 0 }
      v = gamma == 1 ? v : pow(v, 1 / gamma)
      return v >= 1 ? 255 : UInt8(256 * v)
    }
  }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }

  public var isRowLocal: Bool { true }

  public func process(band: inout PixelBuffer, firstRow: Int) { process(&band) }

  /// True for the default settings, which change nothing (ffmpeg's eq passes such
  /// frames through too).
  public var isIdentity: Bool { brightness == 0 && contrast == 1 && saturation == 1 && gamma == 1 }

  public func process(_ frame: inout PixelBuffer) {
    guard !isIdentity else { return }
    let width = frame.width, height = frame.height, stride = frame.bytesPerRow
    lumaTable.withUnsafeBufferPointer { luma in
      chromaTable.withUnsafeBufferPointer { chroma in
        frame.withUnsafeMutableBytes { base in
          for y in 0..<height {
            let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
            var x = 0
            if let luma = linearLuma, let chroma = linearChroma {
              while x + 16 <= width {
                Self.linearStep(UnsafeMutableRawPointer(row + x * 4), luma: luma, chroma: chroma)
                x += 16
              }
            }
            for x in x..<width {
              let p = row + x * 4
              let b = Int(p[0]), g = Int(p[1]), r = Int(p[2])
              // BT.601 limited range, as the encoder path converts.
              let yy = Int(luma[(66 * r + 129 * g + 25 * b + 128) >> 8 + 16])
              let cb = Int(chroma[(-38 * r - 74 * g + 112 * b + 128) >> 8 + 128]) - 128
              let cr = Int(chroma[(112 * r - 94 * g - 18 * b + 128) >> 8 + 128]) - 128
              let c = 298 * (yy - 16)
              p[0] = Self.clamp((c + 516 * cb + 128) >> 8)
              p[1] = Self.clamp((c - 100 * cb - 208 * cr + 128) >> 8)
              p[2] = Self.clamp((c + 409 * cr + 128) >> 8)
            }
          }
        }
      }
    }
  }

  @inline(__always)
  static func clamp(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }

  /// The per-pixel loop's arithmetic for 16 pixels at `p`, with the tables in their
  /// fixed-point form: the same integers, so the same bytes.
  @inline(__always)
  static func linearStep(_ p: UnsafeMutableRawPointer, luma: (c: Int32, b: Int32), chroma: (c: Int32, b: Int32)) {
    typealias V = SIMD16<Int32>
    let zero = V(repeating: 0), top = V(repeating: 255)
    @inline(__always) func lut(_ x: V, _ form: (c: Int32, b: Int32)) -> V {
      ((x &* form.c) &>> 12 &+ form.b).clamped(lowerBound: zero, upperBound: top)
    }
    let pixels = p.loadUnaligned(as: SIMD16<UInt32>.self)
    let b = V(truncatingIfNeeded: pixels & 0xFF), g = V(truncatingIfNeeded: (pixels &>> 8) & 0xFF)
    let r = V(truncatingIfNeeded: (pixels &>> 16) & 0xFF)
    let yy = lut((66 &* r &+ 129 &* g &+ 25 &* b &+ 128) &>> 8 &+ 16, luma)
    let cb = lut((-38 &* r &- 74 &* g &+ 112 &* b &+ 128) &>> 8 &+ 128, chroma) &- 128
    let cr = lut((112 &* r &- 94 &* g &- 18 &* b &+ 128) &>> 8 &+ 128, chroma) &- 128
    let c = 298 &* (yy &- 16)
    let blue = ((c &+ 516 &* cb &+ 128) &>> 8).clamped(lowerBound: zero, upperBound: top)
    let green = ((c &- 100 &* cb &- 208 &* cr &+ 128) &>> 8).clamped(lowerBound: zero, upperBound: top)
    let red = ((c &+ 409 &* cr &+ 128) &>> 8).clamped(lowerBound: zero, upperBound: top)
    let out = SIMD16<UInt32>(truncatingIfNeeded: blue) | SIMD16<UInt32>(truncatingIfNeeded: green) &<< 8
      | SIMD16<UInt32>(truncatingIfNeeded: red) &<< 16 | (pixels & 0xFF00_0000)
    p.storeBytes(of: out, as: SIMD16<UInt32>.self)
  }

  public var acceptsYUV420: Bool { true }

  /// A colour change works sample by sample: a band is a picture like any other.
  public func process(yuv420Band band: YUV420Picture, firstRow: Int) {
    process(yuv420: band, into: band)
  }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    guard !isIdentity else {
      if !source.isSamePicture(as: destination) { source.copyPixels(to: destination) }
      return
    }
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      (index == 0 ? lumaTable : chromaTable).withUnsafeBufferPointer { table in
        for row in 0..<from.height {
          let s = from.base + row * from.stride, d = to.base + row * to.stride
          for x in 0..<from.width { d[x] = table[Int(s[x])] }
        }
      }
    }
  }
}
