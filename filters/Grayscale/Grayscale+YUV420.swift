import CamfxCore

/// Grey in yuv420p: a BT.601 picture's Y already is the BT.601 luma this filter
/// computes (scaled to video range), so grey keeps Y as it is and sets Cb and Cr to
/// neutral (128) — as `ffmpeg -vf hue=s=0` does. (Through BGRA, a Y outside
/// 16...235 would be clamped first; here it is kept.) BT.709 weights are not what the picture's Y holds, so `matrix=bt709`
/// works on BGRA.
extension Grayscale {
  public var acceptsYUV420: Bool { matrix == .bt601 }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    precondition(source.geometry == destination.geometry, "grayscale keeps the size: \(source.geometry) → \(destination.geometry)")
    if !source.isSamePicture(as: destination) { source.copyPlane(0, to: destination) }
    for row in 0..<destination.chromaHeight {
      (destination.u + row * destination.uStride).update(repeating: 128, count: destination.chromaWidth)
      (destination.v + row * destination.vStride).update(repeating: 128, count: destination.chromaWidth)
    }
  }

  /// Grey works sample by sample: a band is a picture like any other.
  public func process(yuv420Band band: YUV420Picture, firstRow: Int) {
    process(yuv420: band, into: band)
  }
}
