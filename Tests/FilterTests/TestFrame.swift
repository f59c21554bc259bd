import Camfx
import XCTest

/// A frame under test that is a view into a larger, fully randomised storage: one
/// column and row of neighbours on each side plus row padding. After a filter runs,
/// `assertOutsideUntouched` checks that not one byte outside the view changed.
struct TestFrame {
  var frame: PixelBuffer
  let before: [UInt8]
  /// The frame's pixels before filtering, `[y][x]`.
  let pixels: [[BGRA]]

  init(width: Int, height: Int, extraRowBytes: Int = 20, seed: UInt64 = 1) {
    let outer = PixelBuffer(
      width: width + 2, height: height + 2, bytesPerRow: (width + 2) * 4 + extraRowBytes)
    var rng = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: outer.storage.byteCount)
    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    outer.storage.baseAddress.copyMemory(from: bytes, byteCount: bytes.count)
    var frame = outer
    frame.crop(x: 1, y: 1, width: width, height: height)
    self.frame = frame
    self.before = bytes
    self.pixels = (0..<height).map { y in (0..<width).map { x in frame[x, y] } }
  }

  var width: Int { frame.width }
  var height: Int { frame.height }

  /// Checks that every storage byte outside `frame`'s view (or outside `region`, a
  /// rectangle of the view, when given) is as it was.
  func assertOutsideUntouched(
    region: (x: Int, y: Int, width: Int, height: Int)? = nil, file: StaticString = #filePath, line: UInt = #line
  ) {
    let r = region ?? (0, 0, frame.width, frame.height)
    let storage = frame.storage
    let start = frame.offset + r.y * frame.bytesPerRow + r.x * 4
    var changed = 0
    for i in 0..<storage.byteCount {
      let relative = i - start
      let row = relative >= 0 ? relative / frame.bytesPerRow : -1
      let column = relative >= 0 ? relative % frame.bytesPerRow : -1
      let inside = row >= 0 && row < r.height && column < r.width * 4
      if !inside && storage.baseAddress.load(fromByteOffset: i, as: UInt8.self) != before[i] { changed += 1 }
    }
    XCTAssertEqual(changed, 0, "bytes outside the filtered region changed", file: file, line: line)
  }
}

/// A small deterministic generator (SplitMix64) so tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Odd widths and heights, 1×1, and widths that cross the kernels' 4-, 8-, 16- and
/// 32-pixel block sizes with a remainder.
let testSizes: [(Int, Int)] = [(1, 1), (2, 1), (1, 3), (7, 5), (33, 17), (8, 2), (31, 4), (64, 3), (100, 9), (257, 6)]

extension PixelBuffer {
  /// All pixels, `[y][x]`.
  var allPixels: [[BGRA]] { (0..<height).map { y in (0..<width).map { x in self[x, y] } } }
}

/// Runs a spec through the built-in registry: parse, configure for `input`, process.
func runChain(_ specs: [String], on frame: inout PixelBuffer) throws {
  var chain = try FilterRegistry.builtin.makeChain(specs)
  try chain.configure(input: frame.geometry)
  chain.process(&frame)
}

/// The message of the error `body` throws, or a failure when it throws none.
func errorMessage(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> String? {
  do {
    try body()
    XCTFail("expected an error", file: file, line: line)
    return nil
  } catch {
    return String(describing: error)
  }
}

extension FilterChain {
  /// Runs the configured chain on `frame` and puts the result in its place (a frame of
  /// a fresh pool when a filter resizes).
  func run(_ frame: inout PixelBuffer) {
    guard let out = process(frame, using: makeBuffers(capacity: 1)) else { preconditionFailure("no frame") }
    frame = out
  }
}
