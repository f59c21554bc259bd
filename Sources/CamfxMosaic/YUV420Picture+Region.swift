import CamfxCore

extension YUV420Picture {
  /// The rectangle `r` of this picture as a picture of its own (the same memory, the
  /// same strides): a cell a scaler writes into.
  ///
  ///     y ──▶ ┌──────────────────────┐
  ///           │   (r.x, r.y)         │   chroma from (r.x / 2, r.y / 2):
  ///           │      ┌────────┐      │   the corner is even, so the rectangle
  ///           │      │   r    │      │   owns whole 2×2 blocks
  ///           │      └────────┘      │
  ///           └──────────────────────┘
  ///
  /// - Precondition: `r` lies inside the picture with an even corner.
  func region(_ r: PixelRectangle) -> YUV420Picture {
    precondition(r.x % 2 == 0 && r.y % 2 == 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= width && r.y + r.height <= height,
      "rectangle \(r) of a \(geometry) picture")
    return YUV420Picture(
      width: r.width, height: r.height, y: y + r.y * yStride + r.x, yStride: yStride,
      u: u + r.y / 2 * uStride + r.x / 2, uStride: uStride, v: v + r.y / 2 * vStride + r.x / 2, vStride: vStride)
  }

  /// Sets every sample of the chroma-aligned rectangle `r` to (`luma`, `cb`, `cr`);
  /// an empty rectangle is nothing to do.
  func fill(_ r: PixelRectangle, luma: UInt8, cb: UInt8, cr: UInt8) {
    guard r.width > 0, r.height > 0 else { return }
    let part = region(r)
    for index in 0..<3 {
      let plane = part.plane(index)
      let value = index == 0 ? luma : index == 1 ? cb : cr
      for row in 0..<plane.height { (plane.base + row * plane.stride).update(repeating: value, count: plane.width) }
    }
  }

  /// Fills `cell` outside `inside` (a rectangle within it): the bars around a
  /// letterboxed picture.
  func fill(_ cell: PixelRectangle, outside inside: PixelRectangle, luma: UInt8, cb: UInt8, cr: UInt8) {
    fill(PixelRectangle(x: cell.x, y: cell.y, width: cell.width, height: inside.y - cell.y), luma: luma, cb: cb, cr: cr)
    let bottom = inside.y + inside.height
    fill(PixelRectangle(x: cell.x, y: bottom, width: cell.width, height: cell.y + cell.height - bottom), luma: luma, cb: cb, cr: cr)
    fill(PixelRectangle(x: cell.x, y: inside.y, width: inside.x - cell.x, height: inside.height), luma: luma, cb: cb, cr: cr)
    let right = inside.x + inside.width
    fill(
      PixelRectangle(x: right, y: inside.y, width: cell.x + cell.width - right, height: inside.height), luma: luma, cb: cb,
      cr: cr)
  }
}
