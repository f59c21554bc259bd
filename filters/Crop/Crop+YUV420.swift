import CamfxCore

/// Cropping yuv420p pictures: the rectangle's rows of each plane are copied into the
/// destination. Only when the rectangle's corner and sides are even, so that it holds
/// whole 2×2 blocks of pixels and their chroma samples; other rectangles are cropped
/// in BGRA.
extension Crop {
  public var acceptsYUV420: Bool { x % 2 == 0 && y % 2 == 0 && width % 2 == 0 && height % 2 == 0 }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    precondition(source.geometry == inputSize && destination.width == width && destination.height == height,
      "crop configured for \(inputSize) → \(width)x\(height), got \(source.geometry) → \(destination.geometry)")
    guard !source.isSamePicture(as: destination) else { return }  // the whole frame: nothing to do
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      let shift = index == 0 ? 0 : 1  // chroma planes are half size
      let left = x >> shift, top = y >> shift
      for row in 0..<to.height {
        (to.base + row * to.stride).update(from: from.base + (top + row) * from.stride + left, count: to.width)
      }
    }
  }
}
