import Camfx
import CamfxPixelFormats
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

/// `specs` run both ways on a yuv420p `source`: on its planes (`planar`), and converted
/// to BGRA, filtered and converted back (`viaBGRA`), each with a chain of its own (a
/// filter that keeps state between frames sees one frame on each path).
func runBothPaths(_ specs: [String], on source: YUV420Planes) throws -> (planar: YUV420Planes, viaBGRA: YUV420Planes) {
  let size = FrameGeometry(width: source.width, height: source.height)
  // Both paths on one calendar time: `timestamp` draws the wall clock's second, which
  // could turn between the two (the paths then drew different digits).
  let clock = FrameClock.origin(epochSeconds: Double(time(nil)), at: .zero)
  var planarChain = try FilterRegistry.builtin.makeChain(specs)
  planarChain.setClock(clock)
  let output = try planarChain.configure(input: size)
  XCTAssertTrue(planarChain.acceptsYUV420, "\(specs) does not accept yuv420p")
  var picture = source.picture
  picture.presentationTime = .zero
  let planar = YUV420Planes(width: output.width, height: output.height)
  planarChain.process(yuv420: picture, into: planar.picture, using: planarChain.makeYUV420Intermediates())

  var bgraChain = try FilterRegistry.builtin.makeChain(specs)
  bgraChain.setClock(clock)
  try bgraChain.configure(input: size)
  var frame = PixelBuffer(width: size.width, height: size.height)
  PixelConverter.convertI420(
    luma: source.y, lumaBytesPerRow: source.yStride, cb: source.u, cr: source.v, chromaBytesPerRow: source.uStride, to: frame)
  bgraChain.run(&frame)
  let back = YUV420Planes(width: output.width, height: output.height)
  BGRAToYUV420.convert(frame, into: back)
  return (planar, back)
}

/// The largest difference between two pictures' plane `index` (0 = Y, 1 = U, 2 = V).
func maxDifference(_ a: YUV420Planes, _ b: YUV420Planes, plane index: Int) -> Int {
  let p = a.picture.plane(index), q = b.picture.plane(index)
  precondition(p.width == q.width && p.height == q.height, "planes of different sizes")
  var worst = 0
  for r in 0..<p.height {
    for c in 0..<p.width { worst = max(worst, abs(Int(p.base[r * p.stride + c]) - Int(q.base[r * q.stride + c]))) }
  }
  return worst
}

/// A yuv420p picture of `size` made of 2×2 blocks of one random colour each: its round
/// trip through BGRA loses nothing but rounding.
func blockPicture(_ size: FrameGeometry, seed: UInt64) -> YUV420Planes {
  let blocks = TestFrame(width: (size.width + 1) / 2, height: (size.height + 1) / 2, seed: seed)
  let frame = PixelBuffer(width: size.width, height: size.height)
  for y in 0..<size.height { for x in 0..<size.width { frame[x, y] = blocks.frame[x / 2, y / 2] } }
  let planes = YUV420Planes(width: size.width, height: size.height)
  BGRAToYUV420.convert(frame, into: planes)
  return planes
}
