import CamfxCore

/// Flipping yuv420p pictures: each plane is flipped on its own, as `ffmpeg -vf hflip`
/// and `vflip` do, which is exactly the BGRA flip when the flipped side is even (every
/// 2×2 block of pixels that shares a chroma sample lands on another such block). With an
/// odd width (or height, flipping vertically) the chroma would shift by half a sample,
/// so such frames go through BGRA instead.
extension Mirror {
  public var acceptsYUV420: Bool {
    switch axis {
    case .horizontal: return frameSize.width % 2 == 0
    case .vertical: return frameSize.height % 2 == 0
    case .both: return frameSize.width % 2 == 0 && frameSize.height % 2 == 0
    }
  }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    precondition(source.geometry == frameSize && destination.geometry == frameSize,
      "mirror configured for \(frameSize), got \(source.geometry) → \(destination.geometry)")
    let inPlace = source.isSamePicture(as: destination)
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      let width = from.width, height = from.height
      switch (axis, inPlace) {
      case (.horizontal, false):
        for y in 0..<height { Self.reverseBytes(from.base + y * from.stride, into: to.base + y * to.stride, count: width) }
      case (.horizontal, true):
        for y in 0..<height { Self.reverseBytes(to.base + y * to.stride, count: width) }
      case (.vertical, false):
        for y in 0..<height {
          (to.base + y * to.stride).update(from: from.base + (height - 1 - y) * from.stride, count: width)
        }
      case (.vertical, true):
        for y in 0..<height / 2 {
          Self.swapBytes(to.base + y * to.stride, to.base + (height - 1 - y) * to.stride, count: width)
        }
      case (.both, false):
        for y in 0..<height {
          Self.reverseBytes(from.base + (height - 1 - y) * from.stride, into: to.base + y * to.stride, count: width)
        }
      case (.both, true):
        for y in 0..<height / 2 {
          Self.swapReversingBytes(to.base + y * to.stride, to.base + (height - 1 - y) * to.stride, count: width)
        }
        if height % 2 == 1 { Self.reverseBytes(to.base + (height / 2) * to.stride, count: width) }
      }
    }
  }

  /// A band of a left-right flip: each of its rows reversed where it is.
  public func process(yuv420Band band: YUV420Picture, firstRow: Int) {
    precondition(axis == .horizontal && band.width == frameSize.width && firstRow + band.height <= frameSize.height,
      "mirror=axis=\(axis.rawValue) of \(frameSize), got rows \(firstRow)..<\(firstRow + band.height) of width \(band.width)")
    for index in 0..<3 {
      let plane = band.plane(index)
      for y in 0..<plane.height { Self.reverseBytes(plane.base + y * plane.stride, count: plane.width) }
    }
  }

  typealias ByteBlock = SIMD32<UInt8>

  /// The 32 lanes in reverse order (one byte shuffle and one lane swap with AVX2).
  @inline(__always)
  static func reversed(_ v: ByteBlock) -> ByteBlock {
    ByteBlock(
      v[31], v[30], v[29], v[28], v[27], v[26], v[25], v[24], v[23], v[22], v[21], v[20], v[19], v[18], v[17], v[16],
      v[15], v[14], v[13], v[12], v[11], v[10], v[9], v[8], v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
  }

  /// `destination[i] = source[count - 1 - i]`; the two rows do not overlap.
  @inline(__always)
  static func reverseBytes(_ source: UnsafeMutablePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int) {
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
    var i = 0
    while i + 32 <= count {
      let block = from.loadUnaligned(fromByteOffset: count - 32 - i, as: ByteBlock.self)
      to.storeBytes(of: reversed(block), toByteOffset: i, as: ByteBlock.self)
      i += 32
    }
    while i < count {
      destination[i] = source[count - 1 - i]
      i += 1
    }
  }

  /// Reverses `count` bytes in place.
  @inline(__always)
  static func reverseBytes(_ row: UnsafeMutablePointer<UInt8>, count: Int) {
    let raw = UnsafeMutableRawPointer(row)
    var left = 0, right = count  // bytes [left, right) are still to do
    while right - left >= 64 {
      let a = raw.loadUnaligned(fromByteOffset: left, as: ByteBlock.self)
      let b = raw.loadUnaligned(fromByteOffset: right - 32, as: ByteBlock.self)
      raw.storeBytes(of: reversed(b), toByteOffset: left, as: ByteBlock.self)
      raw.storeBytes(of: reversed(a), toByteOffset: right - 32, as: ByteBlock.self)
      left += 32
      right -= 32
    }
    right -= 1
    while left < right {
      (row[left], row[right]) = (row[right], row[left])
      left += 1
      right -= 1
    }
  }

  /// Exchanges two distinct rows of `count` bytes.
  @inline(__always)
  static func swapBytes(_ top: UnsafeMutablePointer<UInt8>, _ bottom: UnsafeMutablePointer<UInt8>, count: Int) {
    let a = UnsafeMutableRawPointer(top), b = UnsafeMutableRawPointer(bottom)
    var i = 0
    while i + 32 <= count {
      let x = a.loadUnaligned(fromByteOffset: i, as: ByteBlock.self)
      a.storeBytes(of: b.loadUnaligned(fromByteOffset: i, as: ByteBlock.self), toByteOffset: i, as: ByteBlock.self)
      b.storeBytes(of: x, toByteOffset: i, as: ByteBlock.self)
      i += 32
    }
    while i < count {
      swap(&top[i], &bottom[i])
      i += 1
    }
  }

  /// Puts the reverse of each of two distinct rows into the other: byte `i` of `top`
  /// trades places with byte `count - 1 - i` of `bottom`.
  @inline(__always)
  static func swapReversingBytes(_ top: UnsafeMutablePointer<UInt8>, _ bottom: UnsafeMutablePointer<UInt8>, count: Int) {
    let a = UnsafeMutableRawPointer(top), b = UnsafeMutableRawPointer(bottom)
    var i = 0
    while i + 32 <= count {
      let j = count - 32 - i
      let x = a.loadUnaligned(fromByteOffset: i, as: ByteBlock.self)
      a.storeBytes(of: reversed(b.loadUnaligned(fromByteOffset: j, as: ByteBlock.self)), toByteOffset: i, as: ByteBlock.self)
      b.storeBytes(of: reversed(x), toByteOffset: j, as: ByteBlock.self)
      i += 32
    }
    while i < count {
      swap(&top[i], &bottom[count - 1 - i])
      i += 1
    }
  }
}
