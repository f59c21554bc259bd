/// Filling the part of a frame around a rectangle: the canvas of `pad` and `fit`.
extension PixelBuffer {
  /// Sets every pixel outside `inside` (which lies within the frame) to `color`.
  public func fill(_ color: BGRA, outside inside: PixelRectangle) {
    precondition(inside.x >= 0 && inside.y >= 0 && inside.x + inside.width <= width && inside.y + inside.height <= height)
    let word = color.packed
    withUnsafeMutableBytes { base in
      for y in 0..<height {
        let row = (base + y * bytesPerRow).bindMemory(to: UInt32.self, capacity: width)
        if y < inside.y || y >= inside.y + inside.height {
          row.update(repeating: word, count: width)
        } else {
          row.update(repeating: word, count: inside.x)
          let right = inside.x + inside.width
          (row + right).update(repeating: word, count: width - right)
        }
      }
    }
  }
}

extension YUV420Picture {
  /// The part of this picture that `rectangle` covers, as a picture of its own (the same
  /// memory).
  /// - Precondition: `rectangle.isChromaAligned` and it lies within the picture.
  public func subpicture(_ rectangle: PixelRectangle) -> YUV420Picture {
    precondition(rectangle.isChromaAligned, "a yuv420p subpicture needs even corner and sides")
    precondition(rectangle.x + rectangle.width <= width && rectangle.y + rectangle.height <= height)
    let cx = rectangle.x / 2, cy = rectangle.y / 2
    return YUV420Picture(
      width: rectangle.width, height: rectangle.height,
      y: y + rectangle.y * yStride + rectangle.x, yStride: yStride,
      u: u + cy * uStride + cx, uStride: uStride, v: v + cy * vStride + cx, vStride: vStride)
  }

  /// Sets every sample outside `inside` to `color` (BT.601 limited range, as the BGRA
  /// path would convert it).
  /// - Precondition: `inside.isChromaAligned` and it lies within the picture.
  public func fill(_ color: BGRA, outside inside: PixelRectangle) {
    precondition(inside.isChromaAligned, "a yuv420p fill needs even corner and sides")
    let (luma, cb, cr) = color.yCbCr
    let chromaInside = PixelRectangle(x: inside.x / 2, y: inside.y / 2, width: inside.width / 2, height: inside.height / 2)
    func fillPlane(_ index: Int, _ value: UInt8, outside rect: PixelRectangle) {
      let p = plane(index)
      for row in 0..<p.height {
        let line = p.base + row * p.stride
        if row < rect.y || row >= rect.y + rect.height {
          line.update(repeating: value, count: p.width)
        } else {
          line.update(repeating: value, count: rect.x)
          let right = rect.x + rect.width
          (line + right).update(repeating: value, count: p.width - right)
        }
      }
    }
    fillPlane(0, luma, outside: inside)
    fillPlane(1, cb, outside: chromaInside)
    fillPlane(2, cr, outside: chromaInside)
  }
}
