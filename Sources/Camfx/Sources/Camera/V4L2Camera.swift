import CV4L2
import CamfxCapture
import CamfxCore
import CamfxFrames
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 camera as a live `MediaSource`, like `AVCaptureDeviceInput` feeding an
/// `AVCaptureVideoDataOutput`: it opens the node through libv4l2, negotiates the best
/// native format for the `CameraSettings`, sets the controls and rate, maps at least
/// four driver buffers and streams.
///
///     poll -> VIDIOC_DQBUF -> convert (or decode) into a pooled frame -> VIDIOC_QBUF (at once)
///
/// The pooled frame is BGRA, or yuv420p once the pipeline asks for it
/// (`deliverYUV420Frames()`: YUYV, NV12, I420, YV12, MJPEG and H.264 cameras).
///
/// Frames carry the driver's monotonic timestamp (microseconds on CLOCK_MONOTONIC, the
/// microphone's clock too). Gaps in the driver's `sequence` count as dropped frames, as
/// do corrupt MJPEG or H.264 frames and frames that arrive while every pooled buffer is still in
/// the pipeline.
///
///     let camera = try V4L2Camera(path: "/dev/video0", settings: CameraSettings(size: .init(width: 640, height: 480)))
///     while let frame = try camera.nextFrame() { ... }
///
/// `@unchecked Sendable`: the streaming state (`lastSequence`, the decoder, …) is only
/// touched by `nextFrame`, which one pipeline stage calls from one thread at a time; the
/// counters other threads read are atomics, and everything else is immutable after init.
public final class V4L2Camera: MediaSource, @unchecked Sendable {
  /// The device node, e.g. `/dev/video0`.
  public let path: String
  public let driver: String
  public let card: String
  /// The format streaming now (after the driver's adjustments), with its one interval.
  public let format: CameraFormat
  public let geometry: FrameGeometry
  /// The driver's frame interval as a duration, e.g. 1/30 s.
  public let frameDuration: MediaTime?
  public let isLive = true
  public var pixelFormatName: String { format.pixelFormat.ffmpegName }
  /// What differs from the request (adjusted size or rate, nearest preset size), in
  /// words for the user.
  public let notes: [String]

  /// Frames handed to the pipeline.
  public var framesDelivered: Int { delivered.load(ordering: .relaxed) }
  /// Frames the driver skipped (gaps in `sequence`) or flagged with `V4L2_BUF_FLAG_ERROR`.
  public var framesDroppedByDriver: Int { droppedByDriver.load(ordering: .relaxed) }
  /// The driver's drops count as late: the pipeline did not take them in time.
  public var framesSkippedLate: Int { framesDroppedByDriver }
  /// MJPEG or H.264 frames that were damaged (or, H.264, depended on a damaged one).
  public var framesCorrupt: Int { corrupt.load(ordering: .relaxed) }
  /// Frames dropped because every pooled buffer was still in use downstream.
  public var framesDroppedOutOfBuffers: Int { droppedOutOfBuffers.load(ordering: .relaxed) }

  let device: V4L2Device
  let layout: Layout
  var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
  let pool: PixelBufferPool
  /// The yuv420p frames a camera hands out once asked to (`deliverYUV420Frames()`).
  var yuv420Pool: YUV420FramePool?
  /// Run on each band of a YUYV, NV12, I420 or MJPEG picture as it is converted
  /// (`filterWhileConverting`).
  var bandFilters: FilterChain?
  let decoder: CompressedFrameDecoder?
  let timestampsAreMonotonic: Bool
  var streaming = false
  /// True once streaming started; `stop()` makes `nextFrame` return `nil` for good.
  var started = false
  var lastSequence: UInt32?
  var framesToSkip: Int
  let delivered = Atomic<Int>(0)
  let droppedByDriver = Atomic<Int>(0)
  let corrupt = Atomic<Int>(0)
  let droppedOutOfBuffers = Atomic<Int>(0)

  /// Seconds without a frame before `nextFrame` gives up.
  public static let frameTimeout: Int32 = 5

  /// Where the planes of one driver buffer are, for the converter.
  enum Layout {
    case yuyv(bytesPerRow: Int)
    case nv12(bytesPerRow: Int, chromaOffset: Int)
    case planar420(bytesPerRow: Int, cbOffset: Int, crOffset: Int, chromaBytesPerRow: Int)
    case rgb24(bytesPerRow: Int)
    case bgr24(bytesPerRow: Int)
    /// A compressed frame of variable size (MJPEG, H.264), decoded by `decoder`.
    case compressed
  }

  /// Opens and configures the camera and starts streaming.
  /// - Throws: `V4L2Error`: `.noSuchDevice`, `.permissionDenied(group:)`, `.deviceBusy`,
  ///   `.notCaptureDevice`, `.unsupportedFormat(offered:)`, `.invalidArgument` for a bad
  ///   `--control`, or the failing ioctl.
  public init(path: String, settings: CameraSettings = CameraSettings()) throws {
    self.path = path
    device = try V4L2Device(path: path)
    let caps = try device.queryCapabilities()
    guard caps.isStreamingCapture else {
      throw V4L2Error(
        .notCaptureDevice, operation: "VIDIOC_QUERYCAP", device: path,
        detail: "driver \(caps.driver), '\(caps.card)' has no streaming video capture")
    }
    driver = caps.driver
    card = caps.card
    let choice = try settings.chooseFormat(from: try device.enumerateFormats(), device: path)
    var notes = choice.notes

    // VIDIOC_S_FMT, then see what the driver made of it.
    var fmt = v4l2_format()
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    fmt.fmt.pix.width = UInt32(choice.format.size.width)
    fmt.fmt.pix.height = UInt32(choice.format.size.height)
    fmt.fmt.pix.pixelformat = choice.format.pixelFormat.fourCC
    fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
    try device.ioctl(CAMFX_VIDIOC_S_FMT, &fmt, "VIDIOC_S_FMT")
    let pix = fmt.fmt.pix
    let actualFormat = CameraPixelFormat(fourCC: pix.pixelformat)
    let size = FrameGeometry(width: Int(pix.width), height: Int(pix.height))
    guard actualFormat == choice.format.pixelFormat else {
      throw V4L2Error(
        .unsupportedFormat(offered: choice.format.description), operation: "VIDIOC_S_FMT", device: path,
        detail: "\(choice.format.pixelFormat.code) (the driver switched to \(actualFormat.code))")
    }
    guard size.width > 0, size.height > 0, size.width <= FrameGeometry.maximumSide,
      size.height <= FrameGeometry.maximumSide
    else {
      throw V4L2Error(.failed, operation: "VIDIOC_S_FMT", device: path, detail: "the driver set size \(size)")
    }
    if size != choice.format.size {
      notes.append("the driver adjusted the size from \(choice.format.size) to \(size)")
    }
    layout = try Self.layout(of: pix, format: actualFormat, size: size, device: path)

    // VIDIOC_S_PARM for the rate, when the driver supports it.
    var interval = choice.frameInterval
    var parm = v4l2_streamparm()
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    if device.ioctlStatus(CAMFX_VIDIOC_G_PARM, &parm) == 0 {
      if parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0, let wanted = interval {
        parm.parm.capture.timeperframe.numerator = wanted.numerator
        parm.parm.capture.timeperframe.denominator = wanted.denominator
        try device.ioctl(CAMFX_VIDIOC_S_PARM, &parm, "VIDIOC_S_PARM")
      }
      let got = FrameInterval(
        numerator: parm.parm.capture.timeperframe.numerator, denominator: parm.parm.capture.timeperframe.denominator)
      if got.numerator > 0 && got.denominator > 0 {
        if let wanted = interval, !got.isClose(to: wanted) {
          notes.append("the driver set \(got) fps instead of \(wanted) fps")
        }
        interval = got
      }
    }
    format = CameraFormat(
      pixelFormat: actualFormat, formatDescription: choice.format.formatDescription, size: size,
      frameIntervals: interval.map { [$0] } ?? [], isEmulated: choice.format.isEmulated)
    geometry = size
    frameDuration = interval.map { MediaTime(value: Int64($0.numerator), timescale: Int32(clamping: $0.denominator)) }

    try device.setControls(settings.controls)

    decoder = actualFormat.isCompressed ? try CompressedFrameDecoder(codec: actualFormat == .h264 ? .h264 : .mjpeg) : nil
    pool = PixelBufferPool(geometry: size, capacity: settings.poolCapacity)
    framesToSkip = max(settings.skipFrames, 0)
    self.notes = notes

    // Buffers: VIDIOC_REQBUFS, VIDIOC_QUERYBUF + mmap, VIDIOC_QBUF each, VIDIOC_STREAMON.
    var request = v4l2_requestbuffers()
    request.count = UInt32(settings.bufferCount)
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    request.memory = V4L2_MEMORY_MMAP.rawValue
    try device.ioctl(CAMFX_VIDIOC_REQBUFS, &request, "VIDIOC_REQBUFS")
    guard request.count >= 2 else {
      throw V4L2Error(.failed, operation: "VIDIOC_REQBUFS", device: path, detail: "the driver gave only \(request.count) buffers")
    }
    var monotonic = true
    do {
      for index in 0..<request.count {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.index = index
        try device.ioctl(CAMFX_VIDIOC_QUERYBUF, &buffer, "VIDIOC_QUERYBUF")
        let start = camfx_v4l2_mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, Int64(buffer.m.offset))
        guard let start, start != MAP_FAILED else {
          throw V4L2Error(errno: errno, operation: "mmap", device: path)
        }
        buffers.append((start, Int(buffer.length)))
        monotonic = monotonic && buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
      }
    } catch {
      // `timestampsAreMonotonic` is not set yet, so deinit (which unmaps) does not run:
      // unmap what was mapped here, or the mappings leak and keep the device busy.
      for b in buffers { _ = camfx_v4l2_munmap(b.start, b.length) }
      throw error
    }
    timestampsAreMonotonic = monotonic
  }

  /// Queues every buffer and starts the stream (`VIDIOC_QBUF`, `VIDIOC_STREAMON`).
  /// Called by the first `nextFrame`, not by `init`: a recording opens the camera,
  /// then the encoder and the microphone, and the first frame must not be one the
  /// driver captured before all that (the file starts at the first frame, and audio
  /// only exists from when the microphone started).
  func startStreaming() throws {
    for index in 0..<UInt32(buffers.count) { try queue(index) }
    var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
    do {
      try device.ioctl(CAMFX_VIDIOC_STREAMON, &type, "VIDIOC_STREAMON")
    } catch let error as V4L2Error where error.code == ENOSPC {
      throw V4L2Error(
        .noUSBBandwidth(compressed: format.pixelFormat.isCompressed), code: ENOSPC, operation: "VIDIOC_STREAMON", device: path,
        detail: Self.bandwidthNeeded(format, frameDuration: frameDuration))
    }
    streaming = true
    started = true
  }

  /// What the stream asks of the bus, e.g. "1920x1080 YUYV at 30 fps (about 995 Mbit/s
  /// uncompressed; a USB 2.0 bus carries at most 480)".
  static func bandwidthNeeded(_ format: CameraFormat, frameDuration: MediaTime?) -> String {
    let size = "\(format.size.width)x\(format.size.height)"
    let fps = frameDuration.map { $0.value > 0 ? Double($0.timescale) / Double($0.value) : 0 } ?? 0
    let shown = (fps * 100).rounded() / 100
    let rate = fps > 0 ? " at \(shown == shown.rounded() ? String(Int(shown)) : String(shown)) fps" : ""
    let bits: Double? =
      switch format.pixelFormat {
      case .yuyv: 16
      case .nv12, .yuv420, .yvu420: 12
      case .rgb24, .bgr24: 24
      default: nil
      }
    guard let bits, fps > 0 else { return "\(size) \(format.pixelFormat.code)\(rate)" }
    let megabits = Int((Double(format.size.width * format.size.height) * bits * fps / 1e6).rounded())
    return "\(size) \(format.pixelFormat.code)\(rate) (about \(megabits) Mbit/s uncompressed; a USB 2.0 bus carries at most 480)"
  }

  deinit {
    stop()
    for b in buffers { _ = camfx_v4l2_munmap(b.start, b.length) }
  }

  /// Stops streaming (`VIDIOC_STREAMOFF`); `nextFrame` returns `nil` afterwards.
  public func stop() {
    started = true
    guard streaming else { return }
    streaming = false
    var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
    _ = device.ioctlStatus(CAMFX_VIDIOC_STREAMOFF, &type)
  }

  /// The corresponding ioctl is `VIDIOC_QBUF`.
  func queue(_ index: UInt32) throws {
    var buffer = v4l2_buffer()
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    buffer.memory = V4L2_MEMORY_MMAP.rawValue
    buffer.index = index
    try device.ioctl(CAMFX_VIDIOC_QBUF, &buffer, "VIDIOC_QBUF")
  }

  static func layout(of pix: v4l2_pix_format, format: CameraPixelFormat, size: FrameGeometry, device: String) throws -> Layout {
    let w = size.width, h = size.height
    let stride = Int(pix.bytesperline)
    switch format {
    case .yuyv: return .yuyv(bytesPerRow: max(stride, (w + 1) / 2 * 4))
    case .nv12:
      let s = max(stride, w)
      return .nv12(bytesPerRow: s, chromaOffset: s * h)
    case .yuv420, .yvu420:
      let s = max(stride, w)
      let cs = s / 2 == 0 ? (w + 1) / 2 : max(s / 2, (w + 1) / 2)
      let first = s * h, second = s * h + cs * ((h + 1) / 2)
      return format == .yuv420
        ? .planar420(bytesPerRow: s, cbOffset: first, crOffset: second, chromaBytesPerRow: cs)
        : .planar420(bytesPerRow: s, cbOffset: second, crOffset: first, chromaBytesPerRow: cs)
    case .rgb24: return .rgb24(bytesPerRow: max(stride, w * 3))
    case .bgr24: return .bgr24(bytesPerRow: max(stride, w * 3))
    case .mjpeg, .jpeg, .h264: return .compressed
    default:
      throw V4L2Error(.unsupportedFormat(offered: format.code), operation: "VIDIOC_S_FMT", device: device,
                      detail: "\(format.code), which camfx cannot convert")
    }
  }

  /// The number of bytes a complete uncompressed frame needs in this layout; shorter
  /// frames (`bytesused`) are dropped as corrupt rather than read past their end.
  var minimumFrameBytes: Int {
    let w = geometry.width, h = geometry.height
    switch layout {
    case .yuyv(let s): return s * (h - 1) + (w + 1) / 2 * 4
    case .rgb24(let s), .bgr24(let s): return s * (h - 1) + w * 3
    case .nv12(let s, let c): return c + s * ((h + 1) / 2 - 1) + (w + 1) / 2 * 2
    case .planar420(_, let cb, let cr, let cs): return max(cb, cr) + cs * ((h + 1) / 2 - 1) + (w + 1) / 2
    case .compressed: return 1
    }
  }
}
