import CamfxCore
import CamfxFrames
import CamfxMedia
import Foundation
import XCTest

@testable import Camfx
import CamfxCapture

final class ALSATests: XCTestCase {
  func testAMissingCardSaysNoSuchDevice() {
    XCTAssertThrowsError(try ALSAMicrophone(device: "hw:CamfxMissing,0")) { error in
      XCTAssertEqual((error as? ALSAError)?.kind, .noSuchDevice, "\(error)")
      XCTAssertEqual((error as? ALSAError)?.operation, "snd_pcm_open")
      XCTAssertTrue("\(error)".hasPrefix("audio device hw:CamfxMissing,0: no such device"), "\(error)")
    }
  }

  /// A device alsa-lib refuses for another reason than a missing card (hw:99,0: card
  /// numbers stop at 31) is named as the device that cannot be opened, with alsa-lib's
  /// reason, never as the C call that failed.
  func testADeviceThatCannotBeOpenedIsNamedWithTheReason() {
    XCTAssertThrowsError(try ALSAMicrophone(device: "hw:99,0")) { error in
      XCTAssertEqual((error as? ALSAError)?.kind, .failed, "\(error)")
      XCTAssertEqual("\(error)", "cannot open sound device 'hw:99,0': Invalid argument")
    }
    XCTAssertEqual(
      ALSAError(code: -EIO, operation: "snd_pcm_open", device: "plughw:1,0").description,
      "cannot open sound device 'plughw:1,0': Input/output error")
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

  func testNoSuchDeviceWhileASoundNodeIsOffLimitsIsReportedAsPermissionDenied() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-snd-\(getpid())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for name in ["controlC0", "pcmC0D0c", "seq"] {
      XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: nil))
    }
    // Tests run as root, who may open anything: the user's view is injected.
    let denied = ALSAError.openFailure(code: -ENODEV, device: "hw:Loopback,1,0", soundDirectory: dir) { $0.hasSuffix("/controlC0") }
    XCTAssertEqual(denied.kind, .permissionDenied(group: "audio"), "\(denied)")
    XCTAssertEqual(denied.code, -EACCES)
    XCTAssertEqual(denied.detail, "cannot open \(dir)/pcmC0D0c")
    XCTAssertTrue(denied.description.hasPrefix("audio device hw:Loopback,1,0: permission denied; add your user to the 'audio' group"), denied.description)

    let missing = ALSAError.openFailure(code: -ENOENT, device: "hw:Nope,0", soundDirectory: dir) { _ in true }
    XCTAssertEqual(missing.kind, .noSuchDevice)
    let busy = ALSAError.openFailure(code: -EBUSY, device: "hw:0,0", soundDirectory: dir) { _ in false }
    XCTAssertEqual(busy.kind, .deviceBusy, "only a 'no such device' can hide a permission problem")
    let noCards = ALSAError.openFailure(code: -ENOENT, device: "default", soundDirectory: dir + "/none") { _ in false }
    XCTAssertEqual(noCards.kind, .noSuchDevice)
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
