import CamfxCore
import CamfxMedia
import XCTest

@testable import Camfx
import CamfxCapture

/// Tests against real drivers, run in the qemu guest (vivid, snd-aloop) by setting
/// `CAMFX_TEST_CAMERA=/dev/video0` and `CAMFX_TEST_MICROPHONE=hw:Loopback,1,0` (with a
/// tone playing into `hw:Loopback,0,0`); skipped elsewhere.
final class RealDeviceTests: XCTestCase {
  func monotonicNow() -> MediaTime {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return MediaTime(value: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), timescale: 1_000_000_000)
  }

  func testMicrophoneDeliversStampedAudio() throws {
    guard let device = ProcessInfo.processInfo.environment["CAMFX_TEST_MICROPHONE"] else {
      throw XCTSkip("set CAMFX_TEST_MICROPHONE to an ALSA capture device")
    }
    let mic = try ALSAMicrophone(device: device, sampleRate: 48_000, channels: 1)
    XCTAssertEqual(mic.sampleRate, 48_000)
    let before = monotonicNow()
    try mic.start()
    usleep(1_000_000)
    mic.stop()
    var frames = 0
    var first: MediaTime?
    var last: MediaTime?
    var peak: Int16 = 0
    while let b = try mic.nextBuffer() {
      frames += b.frameCount
      if first == nil { first = b.presentationTime }
      if let last { XCTAssertGreaterThan(b.presentationTime, last) }
      last = b.presentationTime
      peak = max(peak, b.samples.map { $0 == .min ? Int16.max : abs($0) }.max() ?? 0)
    }
    print("microphone: \(frames) frames, first at +\((first! - before).seconds) s, overruns \(mic.overruns), peak \(peak)")
    XCTAssertGreaterThan(frames, 48_000 / 2)
    XCTAssertLessThan(abs((first! - before).seconds), 0.5)
    XCTAssertGreaterThan(peak, 1000, "the tone should be audible")
  }

  func testCameraDeliversStampedFrames() throws {
    guard let path = ProcessInfo.processInfo.environment["CAMFX_TEST_CAMERA"] else {
      throw XCTSkip("set CAMFX_TEST_CAMERA to a V4L2 capture device")
    }
    for format in [CameraPixelFormat.yuyv, .nv12] {
      let camera = try V4L2Camera(path: path, settings: CameraSettings(size: FrameGeometry(width: 640, height: 480), pixelFormat: format))
      XCTAssertEqual(camera.format.pixelFormat, format)
      let now = monotonicNow()
      var times: [MediaTime] = []
      for _ in 0..<5 {
        guard let frame = try camera.nextFrame() else { return XCTFail("no frame") }
        times.append(frame.presentationTime)
        // vivid's 75% colour bars: the first bar is white-ish (191), the last black.
        let left = frame[20, 240], right = frame[620, 240]
        XCTAssertGreaterThan(Int(left.g), 150, "\(format) left \(left)")
        XCTAssertLessThan(Int(right.g), 40, "\(format) right \(right)")
      }
      print("camera \(format): notes \(camera.notes), first frame at \((times[0] - now).seconds) s from now, dropped \(camera.framesDroppedByDriver)")
      XCTAssertLessThan(abs((times[0] - now).seconds), 2)
      for (a, b) in zip(times, times.dropFirst()) { XCTAssertGreaterThan(b, a) }
    }
  }
}
