import CFFmpeg
import CamfxCore
import CamfxFrames
import XCTest

/// The yuv420p frames stages pass on: pictures of their own, how a pool lends them out
/// and takes them back, and a decoder's picture taken over by reference.
final class YUV420FramePoolTests: XCTestCase {
  private let size = FrameGeometry(width: 34, height: 19)

  private func fill(_ frame: YUV420Frame, with value: UInt8) {
    let p = frame.picture
    for plane in 0..<3 {
      let (base, stride, width, height) = p.plane(plane)
      for y in 0..<height { (base + y * stride).update(repeating: value, count: width) }
    }
  }

  private func samples(_ frame: YUV420Frame) -> Set<UInt8> {
    let p = frame.picture
    var seen = Set<UInt8>()
    for plane in 0..<3 {
      let (base, stride, width, height) = p.plane(plane)
      for y in 0..<height { for x in 0..<width { seen.insert(base[y * stride + x]) } }
    }
    return seen
  }

  func testAPictureOfItsOwnHasThePlanesOfItsSize() throws {
    let frame = try YUV420Frame(geometry: size, presentationTime: MediaTime(value: 3, timescale: 30))
    XCTAssertTrue(frame.ownsItsPicture)
    XCTAssertEqual(frame.geometry, size)
    XCTAssertEqual(frame.presentationTime, MediaTime(value: 3, timescale: 30))
    XCTAssertGreaterThanOrEqual(frame.yStride, 34)
    XCTAssertGreaterThanOrEqual(frame.uStride, 17)
    let chroma = frame.picture.plane(1)
    XCTAssertEqual(chroma.width, 17)
    XCTAssertEqual(chroma.height, 10, "odd heights round up")
    fill(frame, with: 77)
    XCTAssertEqual(samples(frame), [77])
  }

  func testAFrameGoesBackWhenItsLastCopyGoesAndTheFirstFreeOneIsLentAgain() throws {
    let pool = try YUV420FramePool(geometry: size, capacity: 2, kind: .owned)
    var first: YUV420Frame? = try pool.acquire(presentationTime: .zero)
    fill(try XCTUnwrap(first), with: 1)
    var copy = first
    var second: YUV420Frame? = try pool.acquire(presentationTime: .zero)
    fill(try XCTUnwrap(second), with: 2)
    XCTAssertNil(try pool.acquire(presentationTime: .zero, shouldStop: { true }), "both are out")
    first = nil
    XCTAssertNil(try pool.acquire(presentationTime: .zero, shouldStop: { true }), "a copy still holds the first")
    copy = nil
    second = nil
    let again = try XCTUnwrap(try pool.acquire(presentationTime: .zero))
    XCTAssertEqual(samples(again), [1], "the first frame, not round-robin: the same few stay warm")
    _ = (copy, second)
  }

  func testAPictureAnEncoderStillHoldsIsNotWrittenOver() throws {
    let pool = try YUV420FramePool(geometry: size, capacity: 1, kind: .owned)
    var frame: YUV420Frame? = try pool.acquire(presentationTime: .zero)
    fill(try XCTUnwrap(frame), with: 9)
    // What an encoder does with a frame it queues: a reference to its buffers.
    let held = try XCTUnwrap(av_frame_alloc())
    defer {
      var h: UnsafeMutablePointer<AVFrame>? = held
      av_frame_free(&h)
    }
    XCTAssertEqual(av_frame_ref(held, try XCTUnwrap(frame).avFrame), 0)
    frame = nil
    let next = try XCTUnwrap(try pool.acquire(presentationTime: .zero))
    XCTAssertNotEqual(next.y, held.pointee.data.0, "fresh buffers, since the held ones are still read")
    fill(next, with: 200)
    XCTAssertEqual(held.pointee.data.0![0], 9, "what the encoder holds is unchanged")
  }

  func testADecodersPictureIsTakenOverByReference() throws {
    let pool = try YUV420FramePool(geometry: size, capacity: 1, kind: .decoded)
    let decoded = try XCTUnwrap(av_frame_alloc())
    defer {
      var d: UnsafeMutablePointer<AVFrame>? = decoded
      av_frame_free(&d)
    }
    decoded.pointee.width = 34
    decoded.pointee.height = 19
    decoded.pointee.format = AV_PIX_FMT_YUV420P.rawValue
    XCTAssertEqual(av_frame_get_buffer(decoded, 0), 0)
    let picture = decoded.pointee.data.0
    let frame = try XCTUnwrap(pool.adopt(decoded, presentationTime: MediaTime(value: 1, timescale: 1)))
    XCTAssertFalse(frame.ownsItsPicture, "a decoder may still read it")
    XCTAssertEqual(frame.y, picture, "the same picture, not a copy")
    XCTAssertNil(decoded.pointee.data.0, "the decoder's frame is left empty")
    XCTAssertEqual(frame.presentationTime, MediaTime(value: 1, timescale: 1))
  }
}
