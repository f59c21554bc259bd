import CFFmpeg
import CamfxPixelFormats

/// How camfx's own converters bring a decoded picture of one kind (pixel format, range,
/// matrix) to yuv420p; pictures of any other kind (RGB, 4:4:4, BT.709, full-range YUYV)
/// go through libswscale to BGRA. The one table that both the decision made once from a
/// decoder's settings (`MovieReader.canDeliverYUV420Frames`) and the per-frame paths of
/// `MovieReader` and `CompressedFrameDecoder` read, so that they cannot disagree.
package enum YUV420Route: Equatable {
  /// Limited-range yuv420p: passed on as it is.
  case asIs
  /// Limited-range packed YUYV, converted by `YUVSourceLayout`.
  case yuyv
  /// Limited-range two-plane NV12, converted by `YUVSourceLayout`.
  case nv12
  /// Full-range 4:2:0 or 4:2:2 (what JPEGs decode to), mapped to limited range by
  /// `FullRangeYUVLayout`.
  case fullRange(FullRangeYUVLayout.ChromaRows)

  package init?(format: AVPixelFormat, range: AVColorRange, matrix: AVColorSpace) {
    // Another matrix: libswscale converts it.
    guard matrix.isBT601 else { return nil }
    let fullRange = range == AVCOL_RANGE_JPEG
    switch format {
    case AV_PIX_FMT_YUVJ420P: self = .fullRange(.half)
    case AV_PIX_FMT_YUVJ422P: self = .fullRange(.full)
    case AV_PIX_FMT_YUV420P: self = fullRange ? .fullRange(.half) : .asIs
    case AV_PIX_FMT_YUV422P where fullRange: self = .fullRange(.full)
    case AV_PIX_FMT_YUYV422 where !fullRange: self = .yuyv
    case AV_PIX_FMT_NV12 where !fullRange: self = .nv12
    default: return nil
    }
  }

  /// The route of a decoded picture.
  package init?(_ f: AVFrame) {
    self.init(format: AVPixelFormat(rawValue: f.format), range: f.color_range, matrix: f.colorspace)
  }
}

extension AVColorSpace {
  /// True for BT.601 (how JPEGs and SD video are coded) or untagged, the matrix camfx's
  /// own converters use.
  package var isBT601: Bool {
    switch self {
    case AVCOL_SPC_UNSPECIFIED, AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG: return true
    default: return false
    }
  }
}

extension FullRangeYUVLayout {
  /// The layout of a decoded full-range 4:2:0 or 4:2:2 picture (what JPEGs decode to),
  /// else nil.
  package init?(_ f: AVFrame) {
    guard case .fullRange(let chromaRows)? = YUV420Route(f), let y = f.data.0, let u = f.data.1, let v = f.data.2,
      f.linesize.0 > 0, f.linesize.1 > 0, f.linesize.1 == f.linesize.2
    else { return nil }
    self.init(
      luma: y, lumaBytesPerRow: Int(f.linesize.0), cb: u, cr: v, chromaBytesPerRow: Int(f.linesize.1), chromaRows: chromaRows)
  }
}
