/// A rectangle of pixels: top-left corner and size.
struct Rectangle: Sendable, Equatable {
  var x: Int
  var y: Int
  var width: Int
  var height: Int

  /// The part of this rectangle inside `other`, or `nil` when they do not overlap.
  func intersection(_ other: Rectangle) -> Rectangle? {
    let left = max(x, other.x), top = max(y, other.y)
    let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
    guard right > left, bottom > top else { return nil }
    return Rectangle(x: left, y: top, width: right - left, height: bottom - top)
  }
}
