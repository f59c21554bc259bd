import CamfxCore

/// Flips the frame: left-right (`horizontal`, the default, like a selfie view),
/// upside down (`vertical`) or both (a 180° turn).
///
///     camfx snapshot --filter mirror=axis=both -o flipped.png
///
/// Works in place and is bit-exact. Rows are reversed sixteen pixels at a time (one
/// 64-byte load from each end, lanes reversed, stored at the other end); a vertical
/// flip swaps rows the same way without reversing them.
///
/// A transcode's decoded yuv420p pictures are flipped as they are, plane by plane, like
/// `ffmpeg -vf hflip` (see `Mirror+YUV420.swift`).
public struct Mirror: RowLocalYUV420Filter {
  public static let name = "mirror"
  public static let summary = "Flips the frame left-right, upside down, or both."
  public static let example = "camfx snapshot --filter mirror=axis=horizontal -o mirrored.png"
  public static let options: [FilterOption] = [
    FilterOption(
      "axis", .choice(Axis.allCases.map(\.rawValue)), default: Axis.horizontal.rawValue,
      help: "horizontal swaps left and right, vertical swaps top and bottom, both does the two"),
  ]

  /// Which way to flip.
  public enum Axis: String, Sendable, CaseIterable {
    case horizontal, vertical, both
  }

  public let axis: Axis
  /// The frame size, known after `configure(input:)`.
  private(set) var frameSize = FrameGeometry(width: 0, height: 0)

  public init(axis: Axis = .horizontal) {
    self.axis = axis
  }

  public init(options: FilterOptions) throws {
    // The option table only admits the choices, so this cannot fail.
    self.init(axis: Axis(rawValue: options.string("axis") ?? "") ?? .horizontal)
  }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    frameSize = input
    return input
  }

  /// Only the left-right flip keeps every row in place.
  public var isRowLocal: Bool { axis == .horizontal }

  public func process(band: inout PixelBuffer, firstRow: Int) {
    precondition(axis == .horizontal, "mirror=axis=\(axis.rawValue) moves rows")
    process(&band)
  }

  public func process(_ frame: inout PixelBuffer) {
    let width = frame.width, height = frame.height, bytesPerRow = frame.bytesPerRow
    frame.withUnsafeMutableBytes { base in
      switch axis {
      case .horizontal:
        for y in 0..<height { Self.reverseRow(base + y * bytesPerRow, count: width) }
      case .vertical:
        for y in 0..<height / 2 {
          Self.swapRows(base + y * bytesPerRow, base + (height - 1 - y) * bytesPerRow, count: width)
        }
      case .both:
        for y in 0..<height / 2 {
          Self.swapReversingRows(base + y * bytesPerRow, base + (height - 1 - y) * bytesPerRow, count: width)
        }
        if height % 2 == 1 { Self.reverseRow(base + (height / 2) * bytesPerRow, count: width) }
      }
    }
  }

  typealias Block = SIMD16<UInt32>

  @inline(__always)
  static func reversed(_ v: Block) -> Block {
    Block(v[15], v[14], v[13], v[12], v[11], v[10], v[9], v[8], v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
  }

  /// Reverses the order of `count` pixels in one row, in place.
  @inline(__always)
  static func reverseRow(_ row: UnsafeMutableRawPointer, count: Int) {
    var left = 0, right = count  // pixels [left, right) are still to do
    while right - left >= 32 {
      let a = row.loadUnaligned(fromByteOffset: left * 4, as: Block.self)
      let b = row.loadUnaligned(fromByteOffset: (right - 16) * 4, as: Block.self)
      row.storeBytes(of: reversed(b), toByteOffset: left * 4, as: Block.self)
      row.storeBytes(of: reversed(a), toByteOffset: (right - 16) * 4, as: Block.self)
      left += 16
      right -= 16
    }
    right -= 1
    while left < right {
      let a = row.loadUnaligned(fromByteOffset: left * 4, as: UInt32.self)
      let b = row.loadUnaligned(fromByteOffset: right * 4, as: UInt32.self)
      row.storeBytes(of: b, toByteOffset: left * 4, as: UInt32.self)
      row.storeBytes(of: a, toByteOffset: right * 4, as: UInt32.self)
      left += 1
      right -= 1
    }
  }

  /// Exchanges two distinct rows of `count` pixels.
  @inline(__always)
  static func swapRows(_ top: UnsafeMutableRawPointer, _ bottom: UnsafeMutableRawPointer, count: Int) {
    var i = 0
    while i + 16 <= count {
      let a = top.loadUnaligned(fromByteOffset: i * 4, as: Block.self)
      let b = bottom.loadUnaligned(fromByteOffset: i * 4, as: Block.self)
      top.storeBytes(of: b, toByteOffset: i * 4, as: Block.self)
      bottom.storeBytes(of: a, toByteOffset: i * 4, as: Block.self)
      i += 16
    }
    while i < count {
      let a = top.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
      let b = bottom.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
      top.storeBytes(of: b, toByteOffset: i * 4, as: UInt32.self)
      bottom.storeBytes(of: a, toByteOffset: i * 4, as: UInt32.self)
      i += 1
    }
  }

  /// Puts the reverse of each of two distinct rows into the other: pixel `i` of `top`
  /// trades places with pixel `count - 1 - i` of `bottom`.
  @inline(__always)
  static func swapReversingRows(_ top: UnsafeMutableRawPointer, _ bottom: UnsafeMutableRawPointer, count: Int) {
    var i = 0
    while i + 16 <= count {
      let j = count - 16 - i
      let a = top.loadUnaligned(fromByteOffset: i * 4, as: Block.self)
      let b = bottom.loadUnaligned(fromByteOffset: j * 4, as: Block.self)
      top.storeBytes(of: reversed(b), toByteOffset: i * 4, as: Block.self)
      bottom.storeBytes(of: reversed(a), toByteOffset: j * 4, as: Block.self)
      i += 16
    }
    while i < count {
      let j = count - 1 - i
      let a = top.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
      let b = bottom.loadUnaligned(fromByteOffset: j * 4, as: UInt32.self)
      top.storeBytes(of: b, toByteOffset: i * 4, as: UInt32.self)
      bottom.storeBytes(of: a, toByteOffset: j * 4, as: UInt32.self)
      i += 1
    }
  }
}
