#if canImport(Glibc)
import Glibc
#endif
import CamfxCore

/// The format and rate chosen for a camera, before the driver has had its say.
public struct CameraFormatChoice: Sendable, Equatable {
  public var format: CameraFormat
  /// The interval to ask for with `VIDIOC_S_PARM` (`nil`: leave the driver's).
  public var frameInterval: FrameInterval?
  /// What differs from the request and why (shown to the user), e.g. "30 fps is not
  /// offered at 640x480; using 25 fps".
  public var notes: [String]
}

extension CameraSettings {
  /// Chooses the best native format for these settings among `formats` (what the
  /// camera enumerates).
  ///
  /// Size: `size`, else the preset's, else 640×480 or the nearest offered. Format:
  /// `pixelFormat` if given; else the camera's own (not libv4l-emulated) formats,
  /// preferring one that offers the rate, then MJPEG at 1280×720 and above, then
  /// YUYV/NV12/I420, then RGB. Rate: `frameRate` exactly, else 30 fps or the nearest.
  ///
  /// - Throws: `V4L2Error(.unsupportedFormat(offered:))` listing what the camera offers
  ///   when an explicit format, size or rate is impossible.
  public func chooseFormat(from formats: [CameraFormat], device: String) throws -> CameraFormatChoice {
    func impossible(_ what: String, offered: [CameraFormat], rates: Bool = false) -> V4L2Error {
      V4L2Error(
        .unsupportedFormat(offered: rates ? offered.map(\.description).joined(separator: "; ") : Self.summary(of: offered)),
        operation: "negotiate", device: device, detail: what)
    }
    var notes: [String] = []
    var candidates = formats.filter { $0.pixelFormat.isConvertible && (!compressedOnly || $0.pixelFormat.isCompressed) }
    if let wanted = pixelFormat {
      candidates = candidates.filter { $0.pixelFormat == wanted }
      if candidates.isEmpty { throw impossible("input format \(wanted.code)", offered: formats) }
    } else if candidates.contains(where: { !$0.isEmulated }) {
      candidates.removeAll { $0.isEmulated }
    }
    if candidates.isEmpty {
      throw impossible(compressedOnly ? "a compressed format (MJPEG or H.264)" : "a format camfx can convert", offered: formats)
    }

    // Size.
    let sizes = Array(Set(candidates.map(\.size)))
    let size: FrameGeometry
    if let exact = self.size ?? preset?.fixedSize {
      guard sizes.contains(exact) else {
        let label = self.size == nil ? "preset \(preset!) (\(exact))" : "size \(exact)"
        throw impossible(label, offered: candidates)
      }
      size = exact
    } else if preset == .high {
      size = sizes.max { ($0.pixelCount, $0.width) < ($1.pixelCount, $1.width) }!
    } else {
      let target = preset?.targetSize ?? CameraSettings.defaultSize
      size = Self.nearest(to: target, in: sizes)
      if size != target && preset == nil {
        notes.append("\(target) is not offered; using \(size)")
      }
    }
    let atSize = candidates.filter { $0.size == size }

    // Rate and format.
    let rate = frameRate ?? CameraSettings.defaultFrameRate
    func offers(_ f: CameraFormat) -> FrameInterval? {
      f.frameIntervals.isEmpty ? rate : f.frameIntervals.first { $0.isClose(to: rate) }
    }
    let large = size.pixelCount >= 1280 * 720
    let ranked = atSize.sorted { a, b in
      let (oa, ob) = (offers(a) != nil, offers(b) != nil)
      if oa != ob { return oa }
      return Self.preference(a.pixelFormat, large: large, compressedOnly: compressedOnly)
        < Self.preference(b.pixelFormat, large: large, compressedOnly: compressedOnly)
    }
    let best = ranked[0]
    if let interval = offers(best) {
      return CameraFormatChoice(format: best, frameInterval: interval, notes: notes)
    }
    if frameRate != nil {
      throw impossible("\(rate) fps at \(size)", offered: atSize, rates: true)
    }
    // No explicit rate and 30 fps is not offered: the nearest rate.
    let nearest = best.frameIntervals.min {
      abs($0.framesPerSecond - rate.framesPerSecond) < abs($1.framesPerSecond - rate.framesPerSecond)
    }!
    notes.append("\(rate) fps is not offered at \(size); using \(nearest) fps")
    return CameraFormatChoice(format: best, frameInterval: nearest, notes: notes)
  }

  /// `YUYV 320x180, 640x480 (up to 25 fps); NV12 …`: each format once with its sizes.
  static func summary(of formats: [CameraFormat]) -> String {
    var order: [CameraPixelFormat] = []
    var sizes: [CameraPixelFormat: [String]] = [:]
    for f in formats {
      if sizes[f.pixelFormat] == nil { order.append(f.pixelFormat) }
      let fastest = f.frameIntervals.first.map { " up to \($0) fps" } ?? ""
      sizes[f.pixelFormat, default: []].append("\(f.size)\(fastest)")
    }
    return order.map { "\($0.code) \(sizes[$0]!.joined(separator: ", "))" }.joined(separator: "; ")
  }

  /// The offered size whose area is nearest to `target`'s (by ratio), ties to the wider.
  static func nearest(to target: FrameGeometry, in sizes: [FrameGeometry]) -> FrameGeometry {
    func distance(_ g: FrameGeometry) -> Double {
      abs(log(Double(g.pixelCount) / Double(target.pixelCount)))
        + 0.01 * abs(log(Double(g.width * target.height) / Double(g.height * target.width)))
    }
    return sizes.min { (distance($0), -$0.width) < (distance($1), -$1.width) }!
  }

  /// Lower is better: MJPEG first at large sizes (USB bandwidth), uncompressed YUV
  /// first otherwise (no decoding), RGB next, H.264 last (decoding it costs the most,
  /// and a damaged frame spoils the frames until the next keyframe). For a copy
  /// (`compressedOnly`), H.264 first: a fraction of MJPEG's bytes, and every player
  /// plays it.
  static func preference(_ format: CameraPixelFormat, large: Bool, compressedOnly: Bool = false) -> Int {
    let order: [CameraPixelFormat] =
      compressedOnly
      ? [.h264, .mjpeg, .jpeg]
      : large
      ? [.mjpeg, .jpeg, .yuyv, .nv12, .yuv420, .yvu420, .rgb24, .bgr24, .h264]
      : [.yuyv, .nv12, .yuv420, .yvu420, .mjpeg, .jpeg, .rgb24, .bgr24, .h264]
    return order.firstIndex(of: format) ?? order.count
  }
}
