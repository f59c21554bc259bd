import BenchSupport
import Camfx
import CamfxCapture
import CamfxCore
import CamfxMedia
import Dispatch
import CamfxPixelFormats

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
    }),
    ("camfx BGRA->yuv420p", { bands in
      // Bands of even height, so each band owns whole chroma rows.
      let frame = TestImages.frame(g), planes = YUV420Planes(width: g.width, height: g.height)
      let cut = (g.height / bands) & ~1
      let starts = (0..<bands).map { $0 * cut }
      let heights = (0..<bands).map { $0 == bands - 1 ? g.height - $0 * cut : cut }
      return {
        DispatchQueue.concurrentPerform(iterations: bands) { i in
          frame.withUnsafeBytes { src in
            BGRAToYUV420.convert(
              source: src + starts[i] * frame.bytesPerRow, sourceBytesPerRow: frame.bytesPerRow,
              width: g.width, height: heights[i],
              y: planes.y + starts[i] * planes.yStride, yStride: planes.yStride,
              u: planes.u + starts[i] / 2 * planes.uStride, uStride: planes.uStride,
              v: planes.v + starts[i] / 2 * planes.vStride, vStride: planes.vStride)
          }
        }
      }
    })]
  }
}
