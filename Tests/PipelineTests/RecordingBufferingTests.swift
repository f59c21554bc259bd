import CamfxCore
import XCTest

@testable import Camfx

/// Live rings hold about a second in front of the writer, within the memory budget.
final class RecordingBufferingTests: XCTestCase {
  private func frameBytes(_ g: FrameGeometry) -> Int { PixelBuffer.alignedBytesPerRow(width: g.width) * g.height }

  func testLive1080p30HoldsASecondBeforeTheWriterAndHalfBeforeTheFilters() {
    let b = RecordingBuffering.live(geometry: FrameGeometry(width: 1920, height: 1080), framesPerSecond: 30)
    XCTAssertEqual(b, RecordingBuffering(rawFrames: 16, filteredFrames: 32))
    XCTAssertEqual(b.poolCapacity, 56)
    XCTAssertLessThanOrEqual(b.poolCapacity * frameBytes(FrameGeometry(width: 1920, height: 1080)), RecordingBuffering.liveMemoryBudget)
  }

  func testLargeFramesShrinkTheRingsToFitTheBudget() {
    let uhd = FrameGeometry(width: 3840, height: 2160)
    let b = RecordingBuffering.live(geometry: uhd, framesPerSecond: 30)
    XCTAssertLessThanOrEqual(b.poolCapacity * frameBytes(uhd), RecordingBuffering.liveMemoryBudget)
    XCTAssertLessThan(b.filteredFrames, 32)
    XCTAssertGreaterThanOrEqual(b.filteredFrames, 4)
    XCTAssertLessThanOrEqual(b.rawFrames, b.filteredFrames)
    for ring in [b.rawFrames, b.filteredFrames] { XCTAssertEqual(ring & (ring - 1), 0, "\(ring) is not a power of two") }
  }

  func testFastSmallSourcesGetDeeperRingsAndOddRatesRoundUp() {
    let vga = FrameGeometry(width: 640, height: 480)
    XCTAssertEqual(RecordingBuffering.live(geometry: vga, framesPerSecond: 60), RecordingBuffering(rawFrames: 32, filteredFrames: 64))
    XCTAssertEqual(RecordingBuffering.live(geometry: vga, framesPerSecond: 25), RecordingBuffering(rawFrames: 16, filteredFrames: 32))
    // A nonsense rate falls back to 30.
    XCTAssertEqual(RecordingBuffering.live(geometry: vga, framesPerSecond: .nan), RecordingBuffering(rawFrames: 16, filteredFrames: 32))
  }

  func testFittingAPoolMadeBeforeTheSizeWasKnown() {
    let b = RecordingBuffering(rawFrames: 16, filteredFrames: 32).fitting(pool: 32)
    XCTAssertLessThanOrEqual(b.poolCapacity, 32)
    XCTAssertEqual(b, RecordingBuffering(rawFrames: 8, filteredFrames: 16))
    XCTAssertEqual(RecordingBuffering(rawFrames: 16, filteredFrames: 32).fitting(pool: 100), RecordingBuffering(rawFrames: 16, filteredFrames: 32))
    XCTAssertEqual(RecordingBuffering(rawFrames: 16, filteredFrames: 32).fitting(pool: 1), RecordingBuffering(rawFrames: 2, filteredFrames: 2))
  }
}
