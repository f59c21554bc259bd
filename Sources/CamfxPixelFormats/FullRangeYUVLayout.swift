import CamfxCore

/// Where a full-range ("JPEG") planar YUV picture lies in memory, as libavcodec decodes
/// a JPEG (`yuvj420p`, `yuvj422p`): an MJPEG camera's frames, a Motion-JPEG movie's.
/// It converts them straight to the pipeline's yuv420p (BT.601 limited range), so such
/// sources need no BGRA on the way to a yuv420p chain and the encoder.
///
///     yuv420: Y plane; Cb and Cr planes at half width and half height
///     yuv422: Y plane; Cb and Cr planes at half width and full height
///
/// JPEG's samples span 0...255; the pipeline's Y spans 16...235 and Cb, Cr 16...240:
///
///     Y' = 16  + round(Y × 219 / 255)
///     C' = 128 + round((C − 128) × 224 / 255)      (halves rounded up)
///
/// A 4:2:2 picture's two chroma rows per output row are first averaged, `(a + b + 1) / 2`,
/// as `YUVSourceLayout` takes YUYV's. Both use the JPEG matrix (BT.601), which is the
/// pipeline's. BGRA from these pictures goes through libswscale (`CompressedFrameDecoder`).
public struct FullRangeYUVLayout {
  public enum ChromaRows: Sendable {
    /// 4:2:0: one chroma row for every two picture rows.
    case half
    /// 4:2:2: one chroma row for every picture row.
    case full
  }

  public let luma: UnsafeRawPointer
  public let lumaBytesPerRow: Int
  public let cb: UnsafeRawPointer
  public let cr: UnsafeRawPointer
  public let chromaBytesPerRow: Int
  public let chromaRows: ChromaRows

  public init(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int, cb: UnsafeRawPointer, cr: UnsafeRawPointer, chromaBytesPerRow: Int,
    chromaRows: ChromaRows
  ) {
    self.luma = luma
    self.lumaBytesPerRow = lumaBytesPerRow
    self.cb = cb
    self.cr = cr
    self.chromaBytesPerRow = chromaBytesPerRow
    self.chromaRows = chromaRows
  }

  /// The formulas above as `⌊(x × multiplier + offset) / 255⌋`: Y' = ⌊(219·Y + 4207) / 255⌋
  /// and C' = ⌊(224·C + 4095) / 255⌋ (the offsets hold the 16 and 128 and the rounding),
  /// exact for every 8-bit input (the tests compare all 256 with the formulas).
  static let lumaRange = RangeMap(multiplier: 219, offset: 4207, scale: 56_281, fixedOffset: 1_081_576)
  static let chromaRange = RangeMap(multiplier: 224, offset: 4095, scale: 57_567, fixedOffset: 1_052_741)

  /// Converts to yuv420p, a picture of the source's size. Allocates nothing.
  public func convert(to picture: YUV420Picture) {
    for row in 0..<picture.height {
      Self.lumaRange.apply(
        (luma + row * lumaBytesPerRow).assumingMemoryBound(to: UInt8.self), to: picture.y + row * picture.yStride,
        count: picture.width)
    }
    for row in 0..<picture.chromaHeight {
      let u = picture.u + row * picture.uStride, v = picture.v + row * picture.vStride
      switch chromaRows {
      case .half:
        Self.chromaRange.apply((cb + row * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self), to: u, count: picture.chromaWidth)
        Self.chromaRange.apply((cr + row * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self), to: v, count: picture.chromaWidth)
      case .full:
        // The last row of an odd height has no partner: it is averaged with itself.
        let top = 2 * row, bottom = min(2 * row + 1, picture.height - 1)
        Self.chromaRange.applyMean(
          (cb + top * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self),
          (cb + bottom * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self), to: u, count: picture.chromaWidth)
        Self.chromaRange.applyMean(
          (cr + top * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self),
          (cr + bottom * chromaBytesPerRow).assumingMemoryBound(to: UInt8.self), to: v, count: picture.chromaWidth)
      }
    }
  }
}

extension FullRangeYUVLayout {
  /// Converts to yuv420p a band of `YUV420Picture.bandRows` rows at a time, running the
  /// row-local `chain` on each band while it is in the cache, as `YUVSourceLayout` does
  /// for YUYV and NV12 cameras. Allocates nothing.
  /// - Precondition: `chain.runsOnYUV420Bands`, configured for the picture's size.
  public func convert(to picture: YUV420Picture, filteringBandsWith chain: FilterChain) {
    precondition(chain.runsOnYUV420Bands && chain.inputGeometry == picture.geometry, "a chain for yuv420p bands of \(picture.geometry)")
    picture.forEachBand { band, firstRow in
      rows(from: firstRow).convert(to: band)
      chain.process(yuv420Band: band, firstRow: firstRow)
    }
  }

  /// The same picture from row `row` (even) on.
  func rows(from row: Int) -> FullRangeYUVLayout {
    let chromaRow = chromaRows == .half ? row / 2 : row
    return FullRangeYUVLayout(
      luma: luma + row * lumaBytesPerRow, lumaBytesPerRow: lumaBytesPerRow, cb: cb + chromaRow * chromaBytesPerRow,
      cr: cr + chromaRow * chromaBytesPerRow, chromaBytesPerRow: chromaBytesPerRow, chromaRows: chromaRows)
  }
}

/// One affine map of 8-bit samples, `⌊(x × multiplier + offset) / 255⌋`. The division by
/// 255 is `(t + 1 + (t >> 8)) >> 8`, exact for every t below 65 280 (the largest here is
/// 61 215), so the whole map fits 16-bit lanes: with AVX2, 32 samples a step; otherwise
/// the same map in 16.16 fixed point, `(x × scale + 2^16 offset′) >> 16`, on 32-bit
/// lanes 16 at a time, which Swift's portable SIMD types compile well. Both are exact
/// for every 8-bit input (the tests compare all 256 with the formulas).
struct RangeMap {
  let multiplier: UInt16
  let offset: UInt16
  /// The same map in 16.16 fixed point, for the portable loop.
  let scale: UInt32
  let fixedOffset: UInt32

  @inline(__always) func map(_ x: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: (x &* scale &+ fixedOffset) &>> 16) }

  @inline(__always) func map(_ x: SIMD16<UInt32>) -> SIMD16<UInt8> {
    SIMD16<UInt8>(truncatingIfNeeded: (x &* scale &+ fixedOffset) &>> 16)
  }

  func apply(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
    var x = 0
    #if CAMFX_AVX2 && arch(x86_64)
    x = applyAVX2(source, nil, to: destination, count: count)
    #endif
    while x + 16 <= count {
      let samples = UnsafeRawPointer(source + x).loadUnaligned(as: SIMD16<UInt8>.self)
      UnsafeMutableRawPointer(destination + x).storeBytes(of: map(SIMD16<UInt32>(truncatingIfNeeded: samples)), as: SIMD16<UInt8>.self)
      x += 16
    }
    while x < count {
      destination[x] = map(UInt32(source[x]))
      x += 1
    }
  }

  /// Maps the rounded-up mean of two rows.
  func applyMean(
    _ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int
  ) {
    var x = 0
    #if CAMFX_AVX2 && arch(x86_64)
    x = applyAVX2(top, bottom, to: destination, count: count)
    #endif
    while x + 16 <= count {
      let a = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(top + x).loadUnaligned(as: SIMD16<UInt8>.self))
      let b = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(bottom + x).loadUnaligned(as: SIMD16<UInt8>.self))
      UnsafeMutableRawPointer(destination + x).storeBytes(of: map((a &+ b &+ 1) &>> 1), as: SIMD16<UInt8>.self)
      x += 16
    }
    while x < count {
      destination[x] = map((UInt32(top[x]) + UInt32(bottom[x]) + 1) >> 1)
      x += 1
    }
  }
}
