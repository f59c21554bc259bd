import CamfxCore
import CamfxMedia
import XCTest

@testable import CamfxCapture

final class ALSATests: XCTestCase {
  func testAMissingCardSaysNoSuchDevice() {
    XCTAssertThrowsError(try ALSAMicrophone(device: "hw:CamfxMissing,0")) { error in
      XCTAssertEqual((error as? ALSAError)?.kind, .noSuchDevice, "\(error)")
      XCTAssertEqual((error as? ALSAError)?.operation, "snd_pcm_open")
      XCTAssertTrue("\(error)".hasPrefix("audio device hw:CamfxMissing,0: no such device"), "\(error)")
    }
  }

  func testDiscoveryListsOnlyCaptureDevicesThatExist() {
    for device in AudioDevice.discover() {
      XCTAssertTrue(device.name.hasPrefix("hw:\(device.cardID),"), device.name)
      XCTAssertGreaterThanOrEqual(device.subdevices, 1)
    }
  }

  func testBusyAndPermissionMessages() {
    XCTAssertEqual(ALSAError(code: -EBUSY, operation: "snd_pcm_open", device: "hw:0,0").description,
                   "audio device hw:0,0 is busy: another program is using it")
    XCTAssertEqual(ALSAError(code: -EACCES, operation: "snd_pcm_open", device: "hw:0,0").kind, .permissionDenied(group: "audio"))
    XCTAssertEqual(ALSAError(code: -ENODEV, operation: "snd_pcm_readi", device: "hw:0,0").kind, .disconnected)
  }

  func testTrimmingKeepsSampleTimesExact() {
    let samples: [Int16] = (0..<20).map { Int16($0) }  // 10 stereo frames
    let buffer = PCMBuffer(samples: samples, channels: 2, sampleRate: 1000, presentationTime: MediaTime(value: 5, timescale: 1000))
    let tail = buffer.dropping(frames: 3)
    XCTAssertEqual(tail.samples.first, 6)
    XCTAssertEqual(tail.frameCount, 7)
    XCTAssertEqual(tail.presentationTime, MediaTime(value: 8, timescale: 1000))
    let head = buffer.keeping(frames: 4)
    XCTAssertEqual(head.samples, Array(samples[0..<8]))
    XCTAssertEqual(head.presentationTime, buffer.presentationTime)
  }
}
