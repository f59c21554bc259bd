import XCTest

@testable import CamfxMedia

/// The `prft` box of the live view's fragments, byte by byte against the standard's
/// layout, and back.
final class ProducerReferenceTimeTests: XCTestCase {
  func testTheBoxIsTheStandardsLayoutWithTheCaptureInstantInNTP() {
    // 2026-11-28 05:00:00.5 UTC: 1_795_842_000.5 s after 1970.
    let box = ProducerReferenceTime(track: 1, capturedNanoseconds: 1_795_842_000_500_000_000, mediaTime: 90_000)
    let bytes = box.encoded()
    XCTAssertEqual(bytes.count, 32)
    XCTAssertEqual(Array(bytes[0..<4]), [0, 0, 0, 32])
    XCTAssertEqual(String(decoding: bytes[4..<8], as: UTF8.self), "prft")
    XCTAssertEqual(Array(bytes[8..<12]), [1, 0, 0, 24], "version 1, flags 24 (captured)")
    XCTAssertEqual(Array(bytes[12..<16]), [0, 0, 0, 1])
    // NTP seconds: 1_795_842_000 + 2_208_988_800 = 4_004_830_800 = 0xEEB4_DE50; half a second: 0x8000_0000.
    XCTAssertEqual(Array(bytes[16..<24]), [0xEE, 0xB4, 0xDE, 0x50, 0x80, 0, 0, 0])
    XCTAssertEqual(Array(bytes[24..<32]), [0, 0, 0, 0, 0, 1, 0x5F, 0x90])
  }

  func testItReadsBackWithinANanosecond() throws {
    for nanoseconds: Int64 in [0, 1, 999_999_999, 1_795_842_000_123_456_789] {
      let box = ProducerReferenceTime(track: 2, capturedNanoseconds: nanoseconds, mediaTime: 1 << 40)
      let read = try ProducerReferenceTime(decoding: box.encoded())
      XCTAssertEqual(read.track, 2)
      XCTAssertEqual(read.mediaTime, 1 << 40)
      XCTAssertEqual(Double(read.capturedNanoseconds), Double(nanoseconds), accuracy: 1)
    }
    XCTAssertThrowsError(try ProducerReferenceTime(decoding: [0, 0, 0, 8] + Array("free".utf8))) { error in
      XCTAssertEqual("\(error)", "not a prft box")
    }
  }
}
