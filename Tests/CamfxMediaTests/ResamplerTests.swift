import CFFmpeg
import XCTest

@testable import CamfxMedia

/// A resampler libswresample refuses (a movie's audio with an impossible rate or
/// channel count, as a fuzzed file has) is an error, not a double free: camfx once
/// freed the context in `init` and again in `deinit`, and aborted.
final class ResamplerTests: XCTestCase {
  func testARefusedConversionThrowsAndFreesOnce() {
    for (rate, channels) in [(0, 2), (-8000, 1), (48_000, 0)] {
      XCTAssertThrowsError(
        try Resampler(
          inputRate: rate, inputChannels: channels, inputFormat: AV_SAMPLE_FMT_S16,
          outputRate: 48_000, outputChannels: 2, outputFormat: AV_SAMPLE_FMT_FLTP),
        "\(rate) Hz, \(channels) channels")
    }
  }

  func testAGoodConversionStillWorks() throws {
    let resampler = try Resampler(
      inputRate: 44_100, inputChannels: 1, inputFormat: AV_SAMPLE_FMT_S16,
      outputRate: 48_000, outputChannels: 1, outputFormat: AV_SAMPLE_FMT_S16)
    let input = [Int16](repeating: 1000, count: 4410)
    let out = try input.withUnsafeBytes { raw in
      var plane: UnsafePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      return try withUnsafeMutablePointer(to: &plane) { try resampler.convertToInterleaved(planes: $0, frames: 4410) }
    }
    XCTAssertGreaterThan(out.count, 4000)
    XCTAssertEqual(Int(out[out.count / 2]), 1000, accuracy: 2)
  }
}
