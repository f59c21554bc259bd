import CamfxCore
import XCTest

@testable import Camfx
import CamfxCapture

final class CameraTests: XCTestCase {
  func testOpeningAMissingNodeSaysNoSuchDevice() {
    XCTAssertThrowsError(try V4L2Camera(path: "/dev/video-camfx-missing")) { error in
      let e = error as? V4L2Error
      XCTAssertEqual(e?.kind, .noSuchDevice)
      XCTAssertEqual(e?.operation, "open")
      XCTAssertEqual("\(error)", "camera /dev/video-camfx-missing: no such device")
    }
  }

  func testANonV4L2FileIsNotACaptureDevice() {
    XCTAssertThrowsError(try V4L2Camera(path: "/dev/null")) { error in
      XCTAssertEqual((error as? V4L2Error)?.kind, .notCaptureDevice, "\(error)")
      XCTAssertTrue("\(error)".hasPrefix("/dev/null is not a video capture device"), "\(error)")
    }
  }

  func testDiscoveryInADirectoryWithoutCamerasFindsNone() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-nodev-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // A regular file named like a node is not a camera, and not a problem either.
    _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("video3").path, contents: Data())
    _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("video10").path, contents: Data())
    XCTAssertEqual(CameraDevice.videoNodes(in: dir.path), [dir.path + "/video3", dir.path + "/video10"])
    let found = CameraDevice.discover(in: dir.path)
    XCTAssertEqual(found.cameras, [])
    XCTAssertNil(V4L2Camera.openFirst(in: dir.path))
  }

  func testErrnoClassification() {
    XCTAssertEqual(V4L2Error(errno: EBUSY, operation: "VIDIOC_S_FMT", device: "/dev/video0").description,
                   "camera /dev/video0 is busy: another program is using it (VIDIOC_S_FMT)")
    XCTAssertEqual(V4L2Error(errno: ENODEV, operation: "VIDIOC_DQBUF", device: "/dev/video0").kind, .disconnected)
    XCTAssertEqual(V4L2Error(errno: EIO, operation: "VIDIOC_DQBUF", device: "/dev/video0").kind, .disconnected)
    XCTAssertEqual(V4L2Error(errno: EIO, operation: "VIDIOC_S_CTRL", device: "/dev/video0").kind, .failed)
    let denied = V4L2Error(errno: EACCES, operation: "open", device: "/nonexistent/video0")
    XCTAssertEqual(denied.kind, .permissionDenied(group: "video"))
    XCTAssertTrue(denied.description.contains("'video' group"), denied.description)
  }

  /// ENOSPC at stream-on (a USB bus without bandwidth left) names the stream's size,
  /// format, rate and raw bit rate, and what helps. (In the guest, the errno is
  /// injected into libv4l2 and the whole command's output is checked.)
  func testNoUSBBandwidthSaysWhatTheStreamNeedsAndWhatHelps() {
    let yuyv = CameraFormat(pixelFormat: .yuyv, size: .init(width: 1920, height: 1080), frameIntervals: [])
    let detail = V4L2Camera.bandwidthNeeded(yuyv, frameDuration: MediaTime(value: 1, timescale: 30))
    XCTAssertEqual(detail, "1920x1080 YUYV at 30 fps (about 995 Mbit/s uncompressed; a USB 2.0 bus carries at most 480)")
    let mjpeg = CameraFormat(pixelFormat: .mjpeg, size: .init(width: 1280, height: 720), frameIntervals: [])
    XCTAssertEqual(V4L2Camera.bandwidthNeeded(mjpeg, frameDuration: MediaTime(value: 1001, timescale: 30000)), "1280x720 MJPG at 29.97 fps")
    let error = V4L2Error(
      .noUSBBandwidth(compressed: false), code: ENOSPC, operation: "VIDIOC_STREAMON", device: "/dev/video2", detail: detail)
    XCTAssertEqual(
      error.description,
      "camera /dev/video2 cannot start: its USB bus has no bandwidth left for 1920x1080 YUYV at 30 fps (about 995 Mbit/s "
        + "uncompressed; a USB 2.0 bus carries at most 480) (every camera and device on the bus shares it). What helps: "
        + "--input-format mjpeg (compressed, far less bandwidth than raw YUYV), a smaller --size or --fps, or a port on "
        + "another USB controller (lsusb -t shows which devices share one)")
    // An MJPEG or H.264 stream is already compressed: the advice is only the rest.
    let compressed = V4L2Error(
      .noUSBBandwidth(compressed: true), code: ENOSPC, operation: "VIDIOC_STREAMON", device: "/dev/video2",
      detail: "1280x720 MJPG at 29.97 fps")
    XCTAssertEqual(
      compressed.description,
      "camera /dev/video2 cannot start: its USB bus has no bandwidth left for 1280x720 MJPG at 29.97 fps (every camera "
        + "and device on the bus shares it). What helps: a smaller --size or --fps, or a port on another USB controller "
        + "(lsusb -t shows which devices share one)")
  }

  // MARK: Negotiation

  let webcam: [CameraFormat] = [
    CameraFormat(pixelFormat: .yuyv, size: .init(width: 640, height: 480), frameIntervals: [.init(framesPerSecond: 30), .init(framesPerSecond: 15)]),
    CameraFormat(pixelFormat: .yuyv, size: .init(width: 1280, height: 720), frameIntervals: [.init(framesPerSecond: 10)]),
    CameraFormat(pixelFormat: .yuyv, size: .init(width: 320, height: 240), frameIntervals: [.init(framesPerSecond: 30)]),
    CameraFormat(pixelFormat: .mjpeg, size: .init(width: 640, height: 480), frameIntervals: [.init(framesPerSecond: 30)]),
    CameraFormat(pixelFormat: .mjpeg, size: .init(width: 1280, height: 720), frameIntervals: [.init(framesPerSecond: 30)]),
    CameraFormat(pixelFormat: .mjpeg, size: .init(width: 1920, height: 1080), frameIntervals: [.init(framesPerSecond: 30)]),
    CameraFormat(pixelFormat: .rgb24, size: .init(width: 640, height: 480), frameIntervals: [.init(framesPerSecond: 30)], isEmulated: true),
    CameraFormat(pixelFormat: CameraPixelFormat("H264"), size: .init(width: 1920, height: 1080), frameIntervals: [.init(framesPerSecond: 30)]),
  ]

  func choose(_ settings: CameraSettings) throws -> CameraFormatChoice {
    try settings.chooseFormat(from: webcam, device: "/dev/video0")
  }

  func testDefaultIsYUYV640x480At30() throws {
    let c = try choose(CameraSettings())
    XCTAssertEqual(c.format.pixelFormat, .yuyv)
    XCTAssertEqual(c.format.size, FrameGeometry(width: 640, height: 480))
    XCTAssertEqual(c.frameInterval, FrameInterval(framesPerSecond: 30))
    XCTAssertEqual(c.notes, [])
  }

  func testLargeSizesPreferMJPEGAndPresetsPickSizes() throws {
    XCTAssertEqual(try choose(CameraSettings(preset: .hd720)).format.pixelFormat, .mjpeg)
    XCTAssertEqual(try choose(CameraSettings(preset: .high)).format.size, FrameGeometry(width: 1920, height: 1080))
    XCTAssertEqual(try choose(CameraSettings(preset: .low)).format.size, FrameGeometry(width: 320, height: 240))
    XCTAssertEqual(try choose(CameraSettings(preset: .medium)).format.size, FrameGeometry(width: 640, height: 480))
    // YUYV 720p only offers 10 fps; asking for it explicitly gets it.
    let slow = try choose(CameraSettings(size: .init(width: 1280, height: 720), frameRate: .init(framesPerSecond: 10)))
    XCTAssertEqual(slow.format.pixelFormat, .yuyv)
  }

  func testInputFormatIsHonouredAndEmulatedFormatsAreAvoided() throws {
    XCTAssertEqual(try choose(CameraSettings(pixelFormat: .mjpeg)).format.pixelFormat, .mjpeg)
    XCTAssertEqual(try choose(CameraSettings(pixelFormat: .rgb24)).format.pixelFormat, .rgb24)
    XCTAssertThrowsError(try choose(CameraSettings(pixelFormat: .nv12))) { error in
      XCTAssertEqual(
        "\(error)",
        "camera /dev/video0 cannot deliver input format NV12; it offers: YUYV 640x480 up to 30 fps, "
          + "1280x720 up to 10 fps, 320x240 up to 30 fps; MJPG 640x480 up to 30 fps, 1280x720 up to 30 fps, "
          + "1920x1080 up to 30 fps; RGB3 640x480 up to 30 fps; H264 1920x1080 up to 30 fps")
    }
  }

  /// A copy (`--video-codec copy`) takes only compressed formats, H.264 before MJPEG;
  /// a decoded recording takes H.264 only when nothing else offers the size.
  func testCopiesPreferH264AndDecodingTakesItLast() throws {
    var copy = CameraSettings(preset: .high)
    copy.compressedOnly = true
    XCTAssertEqual(try choose(copy).format.pixelFormat, .h264)
    copy = CameraSettings(size: .init(width: 640, height: 480))
    copy.compressedOnly = true
    XCTAssertEqual(try choose(copy).format.pixelFormat, .mjpeg)
    XCTAssertEqual(try choose(CameraSettings(preset: .high)).format.pixelFormat, .mjpeg)
    let h264Only = [CameraFormat(pixelFormat: .h264, size: .init(width: 640, height: 480), frameIntervals: [.init(framesPerSecond: 30)])]
    XCTAssertEqual(try CameraSettings().chooseFormat(from: h264Only, device: "/dev/video11").format.pixelFormat, .h264)
    XCTAssertEqual(try CameraPixelFormat(parsing: "h264"), .h264)
    copy = CameraSettings()
    copy.compressedOnly = true
    XCTAssertThrowsError(try copy.chooseFormat(from: Array(webcam.prefix(3)), device: "/dev/video0")) { error in
      XCTAssertEqual(
        "\(error)",
        "camera /dev/video0 cannot deliver a compressed format (MJPEG or H.264); it offers: YUYV 640x480 up to 30 fps, "
          + "1280x720 up to 10 fps, 320x240 up to 30 fps")
    }
  }

  func testImpossibleSizeAndRateListWhatIsOffered() throws {
    XCTAssertThrowsError(try choose(CameraSettings(size: .init(width: 800, height: 600)))) { error in
      XCTAssertTrue("\(error)".hasPrefix("camera /dev/video0 cannot deliver size 800x600; it offers: YUYV 640x480 up to 30 fps, 1280x720"), "\(error)")
    }
    XCTAssertThrowsError(try choose(CameraSettings(size: .init(width: 1920, height: 1080), frameRate: .init(framesPerSecond: 60)))) { error in
      XCTAssertEqual("\(error)", "camera /dev/video0 cannot deliver 60 fps at 1920x1080; it offers: MJPG 1920x1080 @ 30; H264 1920x1080 @ 30")
    }
    // Without an explicit rate the nearest one is taken, and the user is told.
    let c = try choose(CameraSettings(size: .init(width: 1280, height: 720), pixelFormat: .yuyv))
    XCTAssertEqual(c.frameInterval, FrameInterval(framesPerSecond: 10))
    XCTAssertEqual(c.notes, ["30 fps is not offered at 1280x720; using 10 fps"])
  }

  func testOptionParsing() throws {
    XCTAssertEqual(try CameraPixelFormat(parsing: "YUYV"), .yuyv)
    XCTAssertEqual(try CameraPixelFormat(parsing: "i420"), .yuv420)
    XCTAssertThrowsError(try CameraPixelFormat(parsing: "h265")) { XCTAssertTrue("\($0)".hasPrefix("unknown input format 'h265'; expected one of: yuyv, nv12")) }
    XCTAssertEqual(try CapturePreset(parsing: "720p"), .hd720)
    XCTAssertThrowsError(try CapturePreset(parsing: "4k")) {
      XCTAssertEqual("\($0)", "unknown preset '4k'; expected one of: vga, 720p, 1080p, high, medium, low")
    }
    XCTAssertEqual(try ControlAssignment(parsing: "Horizontal Flip=on"), ControlAssignment(name: "horizontal_flip", value: 1))
    XCTAssertEqual(try ControlAssignment(parsing: "brightness=-5"), ControlAssignment(name: "brightness", value: -5))
    XCTAssertThrowsError(try ControlAssignment(parsing: "brightness")) { XCTAssertEqual("\($0)", "invalid control 'brightness': expected name=value, e.g. brightness=140") }
    XCTAssertThrowsError(try ControlAssignment(parsing: "brightness=abc")) { XCTAssertEqual("\($0)", "invalid control 'brightness=abc': value 'abc' is not an integer") }
    XCTAssertEqual(CameraControl.normalizedName("White Balance, Automatic"), "white_balance_automatic")
  }
}
