import BenchSupport
import Camfx
import CamfxCapture
import Dispatch

/// Band jobs for camfx's converters (each band converts its own rows).
enum BandHooks {
  static func jobs(_ g: FrameGeometry) -> [(String, (Int) throws -> FrameJob)] {
    [("camfx YUYV->BGRA", { bands in
      let image = PlanarImage.yuyv(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 7)
      let views = rowBands(PixelBuffer(width: g.width, height: g.height), bands)
      let stride = image.strides[0]
      var rows: [Int] = []
      var y = 0
      for v in views { rows.append(y); y += v.height }
      let starts = rows
      let plane = image.planes[0]
      return {
        DispatchQueue.concurrentPerform(iterations: bands) { i in
          PixelConverter.convertYUYV(source: UnsafeRawPointer(plane.baseAddress) + starts[i] * stride, sourceBytesPerRow: stride, to: views[i])
        }
      }
    })]
  }
}
