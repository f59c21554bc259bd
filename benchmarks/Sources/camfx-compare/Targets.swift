import BenchSupport

/// Issue 5's targets, as ratios of camfx's frames per second to a peer's, measured in
/// one run at 1920x1080 on one core.
struct Target {
  let operation: String
  let peer: Library
  let minimumRatio: Double
  let text: String

  static let all: [Target] = [
    Target(operation: "grayscale", peer: .libyuv, minimumRatio: 1.5, text: "≥ 1.5× libyuv ARGBGray"),
    Target(operation: "mirror", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv ARGBMirror"),
    Target(operation: "crop", peer: .libyuv, minimumRatio: 1.0, text: "a view, or ≥ libyuv ARGBCopy"),
    Target(operation: "watermark", peer: .libyuv, minimumRatio: 1.0, text: "time ≤ libyuv ARGBBlend"),
    Target(operation: "bgra-to-yuv420p", peer: .libyuv, minimumRatio: 1.0, text: "≥ libyuv ARGBToI420"),
    Target(operation: "bgra-to-yuv420p", peer: .ffmpeg, minimumRatio: 10.0, text: "≥ 10× libswscale"),
    Target(operation: "yuyv-to-bgra", peer: .libyuv, minimumRatio: 1.0, text: "≥ libyuv YUY2ToARGB"),
    Target(operation: "nv12-to-bgra", peer: .libyuv, minimumRatio: 1.0, text: "≥ libyuv NV12ToARGB"),
    // Issue 39: the camera's conversions straight to yuv420p, ≥ libyuv.
    Target(operation: "yuyv-to-yuv420p", peer: .libyuv, minimumRatio: 1.0, text: "≥ libyuv YUY2ToI420"),
    Target(operation: "nv12-to-yuv420p", peer: .libyuv, minimumRatio: 1.0, text: "≥ libyuv NV12ToI420"),
    // Issue 12: scale and rotate at least 1.2× libyuv (where it has the same filter)
    // and 5× libswscale.
    Target(operation: "scale-bilinear-2of3", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale bilinear"),
    Target(operation: "scale-fast-bilinear-2of3", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv ARGBScale"),
    Target(operation: "scale-fast-bilinear-2of3", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale fast_bilinear"),
    Target(operation: "scale-bilinear-half", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale bilinear"),
    Target(operation: "scale-area-half", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv ARGBScale box"),
    Target(operation: "scale-area-half", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale area"),
    Target(operation: "scale-bicubic-2of3", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale bicubic"),
    Target(operation: "scale-bilinear-2of3-i420", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale bilinear"),
    Target(operation: "scale-fast-bilinear-2of3-i420", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv I420Scale"),
    Target(
      operation: "scale-fast-bilinear-2of3-i420", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale fast_bilinear"),
    Target(operation: "scale-area-half-i420", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv I420Scale box"),
    Target(operation: "scale-area-half-i420", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale area"),
    Target(operation: "scale-bicubic-2of3-i420", peer: .ffmpeg, minimumRatio: 5.0, text: "≥ 5× libswscale bicubic"),
    Target(operation: "rotate-90", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv ARGBRotate"),
    Target(operation: "rotate-90-i420", peer: .libyuv, minimumRatio: 1.2, text: "≥ 1.2× libyuv I420Rotate"),
  ]
}
