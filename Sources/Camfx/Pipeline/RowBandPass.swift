import CamfxCapture
import CamfxCore
import CamfxMedia
import CamfxPixelFormats

/// The filter stage's work for a transcode whose chain is row-local: decoded yuv420p in,
/// encoder-ready yuv420p out, a band of rows at a time, the way Core Image renders a
/// filter graph tile by tile.
///
///     decoded Y/U/V rows r..r+15 ──▶ BGRA band (in cache) ──▶ chain ──▶ Y/U/V rows r..r+15
///
/// Whole frames are 8 MB of BGRA at 1080p, more than the CPU's caches: converting a
/// frame, filtering it and converting it back as three passes streams each one through
/// memory twice more, while another thread's encoder wants the same memory bandwidth.
/// A band of 16 rows (120 KB at 1080p) stays in the core's L2 cache from the first
/// conversion to the last, so only the two yuv420p pictures cross memory, as in
/// `ffmpeg -vf hflip`. The pixels are exactly the three passes' pixels: the same
/// kernels run on the same rows (bands start on even rows, so each one owns its
/// chroma rows), and a row-local filter gives the whole frame's pixels on any band.
///
/// A chain whose every filter also works on yuv420p skips BGRA altogether
/// (`YUV420FilterPass`); this pass is for the row-local rest (`grayscale=matrix=bt709`,
/// a user's own row-local filter).
final class RowBandPass: YUV420FramePass {
  /// Rows per band: even, and small enough that a 4K band (16 × 15 KB) fits in L2 too.
  static let bandRows = 16

  let chain: FilterChain
  let geometry: FrameGeometry
  /// The encoder-ready pictures this pass writes; the writer stage lets go of them.
  let output: YUV420FramePool
  /// The BGRA rows of the band in progress, reused for every band of every frame.
  private let band: PixelBuffer

  /// - Parameters:
  ///   - chain: configured, row-local (`chain.isRowLocal`).
  ///   - capacity: output pictures: the frames the writer's ring holds, plus the one
  ///     being written and the one being encoded.
  init(chain: FilterChain, capacity: Int) throws {
    precondition(chain.isRowLocal, "RowBandPass needs a row-local chain")
    guard let geometry = chain.outputGeometry else { preconditionFailure("the chain is not configured") }
    self.chain = chain
    self.geometry = geometry
    output = try YUV420FramePool(geometry: geometry, capacity: capacity, kind: .owned)
    band = PixelBuffer(width: geometry.width, height: min(Self.bandRows, geometry.height))
  }

  /// Converts, filters and converts back `source` into a picture from `output`.
  /// Returns nil only if `shouldStop` turns true while every output picture is held.
  /// - Throws: `FFmpegError` when a picture still held by the encoder cannot get
  ///   fresh buffers.
  func process(_ source: YUV420Frame, shouldStop: () -> Bool) throws -> YUV420Frame? {
    precondition(source.geometry == geometry, "RowBandPass set up for \(geometry), got \(source.geometry)")
    guard let out = try output.acquire(presentationTime: source.presentationTime, shouldStop: shouldStop) else {
      return nil
    }
    let width = geometry.width, height = geometry.height
    var firstRow = 0
    while firstRow < height {
      let rows = min(Self.bandRows, height - firstRow)
      var rgb = band
      if rows < band.height { rgb.crop(x: 0, y: 0, width: width, height: rows) }
      rgb.presentationTime = source.presentationTime
      let chromaRow = firstRow / 2
      PixelConverter.convertI420(
        luma: source.y + firstRow * source.yStride, lumaBytesPerRow: source.yStride,
        cb: source.u + chromaRow * source.uStride, cr: source.v + chromaRow * source.vStride,
        chromaBytesPerRow: source.uStride, to: rgb)
      chain.process(band: &rgb, firstRow: firstRow)
      rgb.withUnsafeBytes { pixels in
        BGRAToYUV420.convert(
          source: pixels, sourceBytesPerRow: rgb.bytesPerRow, width: width, height: rows,
          y: out.y + firstRow * out.yStride, yStride: out.yStride,
          u: out.u + chromaRow * out.uStride, uStride: out.uStride,
          v: out.v + chromaRow * out.vStride, vStride: out.vStride)
      }
      firstRow += rows
    }
    return out
  }
}
