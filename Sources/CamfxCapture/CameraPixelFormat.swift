/// A V4L2 pixel format, identified by its four-character code (`V4L2_PIX_FMT_*`).
///
/// camfx converts (or decodes) the formats in `convertible` itself; any other format a
/// camera offers is listed by `camfx devices` but not chosen.
public struct CameraPixelFormat: Sendable, Hashable, CustomStringConvertible {
  /// The little-endian four-character code, as `v4l2_fourcc(a, b, c, d)` builds it.
  public var fourCC: UInt32

  public init(fourCC: UInt32) { self.fourCC = fourCC }

  /// Builds the code from its four characters, e.g. `"YUYV"`.
  public init(_ code: StaticString) {
    precondition(code.utf8CodeUnitCount == 4)
    let p = code.utf8Start
    fourCC = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
  }

  /// `V4L2_PIX_FMT_YUYV`: packed 4:2:2, Y0 Cb Y1 Cr.
  public static let yuyv = CameraPixelFormat("YUYV")
  /// `V4L2_PIX_FMT_NV12`: Y plane, then interleaved CbCr at half resolution.
  public static let nv12 = CameraPixelFormat("NV12")
  /// `V4L2_PIX_FMT_YUV420` ("YU12", I420): Y, Cb and Cr planes.
  public static let yuv420 = CameraPixelFormat("YU12")
  /// `V4L2_PIX_FMT_YVU420` ("YV12"): Y, Cr and Cb planes.
  public static let yvu420 = CameraPixelFormat("YV12")
  /// `V4L2_PIX_FMT_MJPEG`: a JPEG image per frame.
  public static let mjpeg = CameraPixelFormat("MJPG")
  /// `V4L2_PIX_FMT_JPEG`: like MJPEG, as some drivers name it.
  public static let jpeg = CameraPixelFormat("JPEG")
  /// `V4L2_PIX_FMT_H264`: an H.264 access unit per frame, Annex B (start codes).
  public static let h264 = CameraPixelFormat("H264")
  /// `V4L2_PIX_FMT_RGB24`: bytes R, G, B.
  public static let rgb24 = CameraPixelFormat("RGB3")
  /// `V4L2_PIX_FMT_BGR24`: bytes B, G, R.
  public static let bgr24 = CameraPixelFormat("BGR3")

  /// The formats camfx converts or decodes, in the order of preference at small sizes.
  public static let convertible: [CameraPixelFormat] = [.yuyv, .nv12, .yuv420, .yvu420, .mjpeg, .jpeg, .rgb24, .bgr24, .h264]

  /// True for formats whose frames are compressed (decoded with libavcodec, or recorded
  /// as they are with `--video-codec copy`).
  public var isCompressed: Bool { self == .mjpeg || self == .jpeg || self == .h264 }

  /// True when camfx can convert this format to BGRA.
  public var isConvertible: Bool { Self.convertible.contains(self) }

  /// The four characters, e.g. `YUYV`, `MJPG` (trailing spaces trimmed).
  public var code: String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: fourCC >> (8 * $0)) }
    let text = String(decoding: bytes.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    return text.trimmingTrailingSpaces()
  }

  /// FFmpeg's name for the format (`yuyv422`, `nv12`, `yuv420p`, `mjpeg`, ...).
  public var ffmpegName: String {
    switch self {
    case .yuyv: return "yuyv422"
    case .nv12: return "nv12"
    case .yuv420: return "yuv420p"
    case .yvu420: return "yvu420p"
    case .mjpeg, .jpeg: return "mjpeg"
    case .rgb24: return "rgb24"
    case .bgr24: return "bgr24"
    case .h264: return "h264"
    default: return name
    }
  }

  /// The name `--input-format` takes for this format.
  public var name: String {
    switch self {
    case .yuyv: return "yuyv"
    case .nv12: return "nv12"
    case .yuv420: return "yu12"
    case .yvu420: return "yv12"
    case .mjpeg: return "mjpeg"
    case .jpeg: return "jpeg"
    case .rgb24: return "rgb24"
    case .bgr24: return "bgr24"
    case .h264: return "h264"
    default: return code.lowercased()
    }
  }

  /// Parses an `--input-format` value: a name above (`mjpeg`, `yuyv`, `nv12`, `i420`,
  /// `rgb24`, …) or a four-character code (`MJPG`).
  /// - Throws: `CaptureOptionError` listing the accepted names.
  public init(parsing text: String) throws {
    let lower = text.lowercased()
    let aliases: [String: CameraPixelFormat] = [
      "yuyv": .yuyv, "yuy2": .yuyv, "yuyv422": .yuyv, "nv12": .nv12, "yu12": .yuv420, "i420": .yuv420,
      "yuv420": .yuv420, "yuv420p": .yuv420, "yv12": .yvu420, "mjpeg": .mjpeg, "mjpg": .mjpeg,
      "jpeg": .jpeg, "rgb24": .rgb24, "rgb3": .rgb24, "bgr24": .bgr24, "bgr3": .bgr24, "h264": .h264, "avc": .h264,
    ]
    if let known = aliases[lower] {
      self = known
      return
    }
    throw CaptureOptionError(
      "unknown input format '\(text)'; expected one of: "
        + CameraPixelFormat.convertible.map(\.name).joined(separator: ", "))
  }

  public var description: String { code }
}

extension String {
  func trimmingTrailingSpaces() -> String {
    var s = Substring(self)
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}
