import CV4L2
import CamfxCore

extension V4L2Device {
  /// What `VIDIOC_QUERYCAP` reports.
  package struct Capabilities {
    package var driver: String
    package var card: String
    var busInfo: String
    /// The node's own capabilities (`device_caps` when `V4L2_CAP_DEVICE_CAPS` is set).
    var deviceCapabilities: UInt32

    package var isStreamingCapture: Bool {
      deviceCapabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 && deviceCapabilities & UInt32(V4L2_CAP_STREAMING) != 0
    }
  }

  /// The corresponding ioctl is `VIDIOC_QUERYCAP`.
  package func queryCapabilities() throws -> Capabilities {
    var cap = v4l2_capability()
    do {
      try ioctl(CAMFX_VIDIOC_QUERYCAP, &cap, "VIDIOC_QUERYCAP")
    } catch let error as V4L2Error where error.code == ENOTTY || error.code == EINVAL {
      throw V4L2Error(.notCaptureDevice, code: error.code, operation: "VIDIOC_QUERYCAP", device: path,
                      detail: "it does not answer V4L2 queries")
    }
    let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
    return Capabilities(
      driver: v4l2String(cap.driver), card: v4l2String(cap.card), busInfo: v4l2String(cap.bus_info),
      deviceCapabilities: caps)
  }

  /// Every pixel format, size and frame interval the capture queue offers.
  /// The corresponding ioctls are `VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES` and
  /// `VIDIOC_ENUM_FRAMEINTERVALS`.
  package func enumerateFormats() throws -> [CameraFormat] {
    var result: [CameraFormat] = []
    var index: UInt32 = 0
    while true {
      var desc = v4l2_fmtdesc()
      desc.index = index
      desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
      let status = ioctlStatus(CAMFX_VIDIOC_ENUM_FMT, &desc)
      if status == EINVAL { break }
      if status != 0 { throw V4L2Error(errno: status, operation: "VIDIOC_ENUM_FMT", device: path) }
      index += 1
      let pixelFormat = CameraPixelFormat(fourCC: desc.pixelformat)
      let emulated = desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0
      for size in try enumerateSizes(pixelFormat) {
        result.append(
          CameraFormat(
            pixelFormat: pixelFormat, formatDescription: v4l2String(desc.description), size: size,
            frameIntervals: try enumerateIntervals(pixelFormat, size), isEmulated: emulated))
      }
    }
    return result
  }

  /// Sizes for one format. Stepwise and continuous ranges are reported as the common
  /// sizes inside the range plus its largest.
  func enumerateSizes(_ format: CameraPixelFormat) throws -> [FrameGeometry] {
    var sizes: [FrameGeometry] = []
    var index: UInt32 = 0
    while true {
      var e = v4l2_frmsizeenum()
      e.index = index
      e.pixel_format = format.fourCC
      let status = ioctlStatus(CAMFX_VIDIOC_ENUM_FRAMESIZES, &e)
      if status == EINVAL || status == ENOTTY { break }
      if status != 0 { throw V4L2Error(errno: status, operation: "VIDIOC_ENUM_FRAMESIZES", device: path) }
      if e.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
        sizes.append(FrameGeometry(width: Int(e.discrete.width), height: Int(e.discrete.height)))
        index += 1
        continue
      }
      let s = e.stepwise
      let (minW, maxW, minH, maxH) = (Int(s.min_width), Int(s.max_width), Int(s.min_height), Int(s.max_height))
      let stepW = max(Int(s.step_width), 1), stepH = max(Int(s.step_height), 1)
      let common = [(160, 120), (320, 240), (640, 360), (640, 480), (800, 600), (1280, 720), (1920, 1080), (3840, 2160)]
      for (w, h) in common where (minW...maxW).contains(w) && (minH...maxH).contains(h)
        && (w - minW) % stepW == 0 && (h - minH) % stepH == 0
      {
        sizes.append(FrameGeometry(width: w, height: h))
      }
      let largest = FrameGeometry(width: min(maxW, FrameGeometry.maximumSide), height: min(maxH, FrameGeometry.maximumSide))
      if !sizes.contains(largest) { sizes.append(largest) }
      break
    }
    return sizes
  }

  /// Frame intervals for one format and size, fastest first. A stepwise range gives
  /// its fastest and slowest interval.
  func enumerateIntervals(_ format: CameraPixelFormat, _ size: FrameGeometry) throws -> [FrameInterval] {
    var intervals: [FrameInterval] = []
    var index: UInt32 = 0
    while true {
      var e = v4l2_frmivalenum()
      e.index = index
      e.pixel_format = format.fourCC
      e.width = UInt32(size.width)
      e.height = UInt32(size.height)
      let status = ioctlStatus(CAMFX_VIDIOC_ENUM_FRAMEINTERVALS, &e)
      if status == EINVAL || status == ENOTTY { break }
      if status != 0 { throw V4L2Error(errno: status, operation: "VIDIOC_ENUM_FRAMEINTERVALS", device: path) }
      if e.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
        intervals.append(FrameInterval(numerator: e.discrete.numerator, denominator: e.discrete.denominator))
        index += 1
        continue
      }
      intervals.append(FrameInterval(numerator: e.stepwise.min.numerator, denominator: e.stepwise.min.denominator))
      intervals.append(FrameInterval(numerator: e.stepwise.max.numerator, denominator: e.stepwise.max.denominator))
      break
    }
    return intervals.filter { $0.numerator > 0 && $0.denominator > 0 }.sorted()
  }
}
