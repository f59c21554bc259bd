/// A rectangle of pixels: top-left corner and size.
public struct PixelRectangle: Sendable, Hashable, Codable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The part of this rectangle inside `other`, or `nil` when they do not overlap.
  public func intersection(_ other: PixelRectangle) -> PixelRectangle? {
    let left = max(x, other.x), top = max(y, other.y)
    let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
    guard right > left, bottom > top else { return nil }
    return PixelRectangle(x: left, y: top, width: right - left, height: bottom - top)
  }

  /// True when the corner and both sides are even, so that in a yuv420p picture the
  /// rectangle holds whole 2×2 blocks and their chroma samples.
  public var isChromaAligned: Bool { x % 2 == 0 && y % 2 == 0 && width % 2 == 0 && height % 2 == 0 }
}
