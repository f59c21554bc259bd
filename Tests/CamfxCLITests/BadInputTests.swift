import Camfx
import CamfxPNG
import Foundation
import XCTest

/// Every "bad input" case of the snapshot command: one clear line on stderr, status 1,
/// and no output file (or temporary file) left behind.
final class BadInputTests: CLITestCase {
  private func snapshotFails(
    _ args: [String], _ expected: String? = nil, prefix: String? = nil, keep: [String] = [],
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    try assertFails(["snapshot"] + args + ["-o", "out.png"], stderr: expected, prefix: prefix, keep: keep, file: file, line: line)
  }

  /// `snapshotFails` plus: the one stderr line mentions every string in `mentions`.
  private func snapshotFails(_ args: [String], mentioning mentions: [String], keep: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
    try snapshotFails(args, prefix: "camfx: error: ", keep: keep, file: file, line: line)
    let result = try CLI.run(["snapshot"] + args + ["-o", "out.png"], in: dir)
    for text in mentions { XCTAssertTrue(result.stderr.contains(text), "'\(result.stderr)' should mention '\(text)'", file: file, line: line) }
  }

  // MARK: sizes

  func testZeroSize() throws {
    try snapshotFails(["--size", "0x0"], "camfx: error: --size: invalid size '0x0': width and height must be at least 1")
  }

  func testHugeSize() throws {
    try snapshotFails(["--size", "99999x99999"], "camfx: error: --size: invalid size '99999x99999': width and height must be at most 16384")
  }

  func testMalformedSize() throws {
    try snapshotFails(["--size", "abc"], "camfx: error: --size: invalid size 'abc': expected WIDTHxHEIGHT, e.g. 1280x720")
  }

  // MARK: filter specs

  func testUnknownFilter() throws {
    let known = FilterRegistry.builtin.filters.map { $0.name }.joined(separator: ", ")
    try snapshotFails(["--filter", "sparkle"], "camfx: error: filter 'sparkle': unknown filter (known: \(known))")
  }

  func testSpecWithoutValue() throws {
    try snapshotFails(["--filter", "crop=width"], "camfx: error: filter 'crop', key 'width': expected KEY=VALUE, got 'width'")
  }

  func testSpecWithoutName() throws {
    try snapshotFails(["--filter", "=x"], "camfx: error: filter '=x': missing filter name (expected NAME or NAME=KEY=VALUE:...)")
  }

  func testUnknownKey() throws {
    try snapshotFails(["--filter", "mirror=sideways=1"], "camfx: error: filter 'mirror', key 'sideways': unknown key (known: axis)")
  }

  func testBadValue() throws {
    try snapshotFails(
      ["--filter", "crop=width=abc:height=10"], "camfx: error: filter 'crop', key 'width', value 'abc': expected an integer")
  }

  func testMissingRequiredKey() throws {
    try snapshotFails(["--filter", "crop=width=10"], "camfx: error: filter 'crop', key 'height': required key missing")
  }

  func testCropOutsideTheFrame() throws {
    try snapshotFails(["--size", "64x48", "--filter", "crop=x=60:y=0:width=10:height=10"], prefix: "camfx: error: filter 'crop': ")
    let result = try CLI.run(["snapshot", "--size", "64x48", "--filter", "crop=x=60:y=0:width=10:height=10", "-o", "out.png"], in: dir)
    XCTAssertTrue(result.stderr.contains("10x10") && result.stderr.contains("64x48"), result.stderr)
  }

  func testZeroSizedCrop() throws {
    try snapshotFails(["--filter", "crop=width=0:height=10"], prefix: "camfx: error: filter 'crop', key 'width', value '0'")
  }

  // MARK: watermark images

  func testWatermarkImageMissing() throws {
    try snapshotFails(["--filter", "watermark=image=nope.png"], mentioning: ["watermark", "nope.png", "No such file or directory"])
  }

  func testWatermarkImageNotAPNG() throws {
    try Data("not a png at all".utf8).write(to: URL(fileURLWithPath: path("mark.png")))
    try snapshotFails(["--filter", "watermark=image=mark.png"], mentioning: ["watermark", "mark.png", "Not a PNG file"], keep: ["mark.png"])
  }

  func testWatermarkImageTruncated() throws {
    let mark = PixelBuffer(width: 40, height: 40)
    for y in 0..<40 { for x in 0..<40 { mark[x, y] = BGRA(r: UInt8(x * 6), g: UInt8(y * 6), b: UInt8((x * y) & 0xFF), a: 200) } }
    try PNGFile.write(mark, to: path("whole.png"), alpha: true)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path("whole.png")))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path("mark.png")))
    try FileManager.default.removeItem(atPath: path("whole.png"))
    try snapshotFails(["--filter", "watermark=image=mark.png"], mentioning: ["watermark", "mark.png", "truncated"], keep: ["mark.png"])
  }

  func testWatermarkImageIsADirectory() throws {
    try FileManager.default.createDirectory(atPath: path("mark.png"), withIntermediateDirectories: false)
    try snapshotFails(["--filter", "watermark=image=mark.png"], mentioning: ["watermark", "mark.png", "Is a directory"], keep: ["mark.png"])
  }

  func testWatermarkImageUnreadable() throws {
    try PNGFile.write(PixelBuffer(width: 2, height: 2), to: path("mark.png"), alpha: true)
    chmod(path("mark.png"), 0o000)
    // As root, run camfx as `nobody` so the permission bits apply.
    let result = try CLI.run(["snapshot", "--filter", "watermark=image=mark.png", "-o", "out.png"], in: dir, unprivileged: true)
    XCTAssertEqual(result.status, 1, "\(result)")
    XCTAssertEqual(result.stderr, "camfx: error: filter 'watermark', key 'image', value 'mark.png': Permission denied\n")
    XCTAssertEqual(try listing(), ["mark.png"])
  }

  func testWatermarkImageWithAbsurdDimensions() throws {
    try Data(PNGHeader.hugeImage).write(to: URL(fileURLWithPath: path("mark.png")))
    try snapshotFails(["--filter", "watermark=image=mark.png"], mentioning: ["watermark", "mark.png", "20000x20000"], keep: ["mark.png"])
  }

  // MARK: sources

  func testMissingCameraSource() throws {
    // The test machine has no camera: /dev/video0 does not exist.
    try snapshotFails(["--source", "/dev/video0"], "camfx: error: camera /dev/video0: no such device")
  }

  func testMissingPNGSource() throws {
    try snapshotFails(["--source", "nope.png"], "camfx: error: cannot read PNG 'nope.png': No such file or directory")
  }

  func testPNGSourceThatIsNotAPNG() throws {
    try Data("hello, this is plain text and not an image\n".utf8).write(to: URL(fileURLWithPath: path("in.png")))
    try snapshotFails(["--source", "in.png"], "camfx: error: cannot read PNG 'in.png': Not a PNG file", keep: ["in.png"])
  }

  func testTruncatedPNGSource() throws {
    let bytes = PNGHeader.hugeImage
    try Data(bytes.prefix(20)).write(to: URL(fileURLWithPath: path("in.png")))
    try snapshotFails(
      ["--source", "in.png"], "camfx: error: cannot read PNG 'in.png': file is truncated (libpng: Read Error)", keep: ["in.png"])
  }

  func testPNGSourceThatIsADirectory() throws {
    try FileManager.default.createDirectory(atPath: path("in.png"), withIntermediateDirectories: false)
    try snapshotFails(["--source", "in.png"], "camfx: error: cannot read PNG 'in.png': Is a directory", keep: ["in.png"])
  }

  func testPNGSourceWithAbsurdDimensions() throws {
    try Data(PNGHeader.hugeImage).write(to: URL(fileURLWithPath: path("in.png")))
    try snapshotFails(
      ["--source", "in.png"], "camfx: error: cannot read PNG 'in.png': image is 20000x20000, larger than the maximum 16384 per side",
      keep: ["in.png"])
  }

  func testSizeThatDoesNotMatchAPNGSource() throws {
    try PNGFile.write(PixelBuffer(width: 4, height: 2), to: path("in.png"), alpha: false)
    try snapshotFails(
      ["--source", "in.png", "--size", "8x8"],
      "camfx: error: source 'in.png': --size 8x8 does not match the image's size 4x2 (camfx does not scale; omit --size)",
      keep: ["in.png"])
  }

  // MARK: output

  func testOutputDirectoryMissing() throws {
    try assertFails(["snapshot", "-o", "missing/out.png"], stderr: "camfx: error: output directory 'missing' does not exist")
  }

  func testOutputDirectoryIsAFile() throws {
    try Data().write(to: URL(fileURLWithPath: path("file")))
    try assertFails(["snapshot", "-o", "file/out.png"], stderr: "camfx: error: output directory 'file' is not a directory", keep: ["file"])
  }

  func testOutputIsADirectory() throws {
    try FileManager.default.createDirectory(atPath: path("out.png"), withIntermediateDirectories: false)
    try assertFails(["snapshot", "-y", "-o", "out.png"], stderr: "camfx: error: output path 'out.png' is a directory", keep: ["out.png"])
  }

  func testOutputDirectoryUnwritable() throws {
    try FileManager.default.createDirectory(atPath: path("ro"), withIntermediateDirectories: false)
    chmod(path("ro"), 0o555)
    // As root, run camfx as `nobody` so the permission bits apply.
    try assertFails(
      ["snapshot", "-o", "ro/out.png"], stderr: "camfx: error: output directory 'ro' is not writable (Permission denied)",
      keep: ["ro"], unprivileged: true)
    XCTAssertEqual(try listing("ro"), [])
  }

  /// Stills and event clips are written at a signal or an event, maybe hours into the
  /// recording: their folders are checked before it starts.
  func testStillAndEventFoldersAreCheckedBeforeRecording() throws {
    try assertFails(
      ["record", "--duration", "2s", "--still", "missing/s-%H%M%S.png", "-o", "a.mp4"],
      stderr: "camfx: error: --still 'missing/s-%H%M%S.png': output directory 'missing' does not exist")
    try assertFails(
      ["record", "--duration", "2s", "--pre-record", "1s", "--event-output", "missing/e.mp4", "-o", "a.mp4"],
      stderr: "camfx: error: --event-output 'missing/e.mp4': output directory 'missing' does not exist")
    try FileManager.default.createDirectory(atPath: path("ro"), withIntermediateDirectories: false)
    chmod(path("ro"), 0o555)
    // As root, run camfx as `nobody` so the permission bits apply; -o's folder is
    // nobody's to write in, as it is checked first.
    chmod(dir.path, 0o777)
    try assertFails(
      ["record", "--duration", "2s", "--pre-record", "1s", "--event-output", "ro/e-%H%M%S.mp4", "-o", "a.mp4"],
      stderr: "camfx: error: --event-output 'ro/e-%H%M%S.mp4': output directory 'ro' is not writable (Permission denied)",
      keep: ["ro"], unprivileged: true)
    XCTAssertEqual(try listing("ro"), [])
  }

  /// `--stats-json` is checked before recording; if it cannot be written at the end
  /// after all, the summary is still said, and the exit status says the stats were lost.
  func testStatsThatCannotBeWrittenAreCheckedFirstAndSaidLast() throws {
    try FileManager.default.createDirectory(atPath: path("ro"), withIntermediateDirectories: false)
    chmod(path("ro"), 0o555)
    chmod(dir.path, 0o777)  // -o's folder is checked first: nobody may write there
    try assertFails(
      ["record", "--duration", "1s", "--stats-json", "ro/s.json", "-o", "a.mp4"],
      stderr: "camfx: error: --stats-json 'ro/s.json': output directory 'ro' is not writable (Permission denied)",
      keep: ["ro"], unprivileged: true)

    try FileManager.default.createDirectory(atPath: path("stats"), withIntermediateDirectories: false)
    let process = try CLI.start(
      ["record", "--source", "testsrc", "--size", "160x120", "--duration", "2s", "--quiet", "--stats-json", "stats/s.json",
       "-o", "a.mp4"], in: dir)
    waitForFile("a.mp4")
    try FileManager.default.removeItem(atPath: path("stats"))
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 1, stderr)
    let lines = stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3, stderr)
    XCTAssertEqual(lines.first, "camfx: warning: --stats-json 'stats/s.json' not written: output directory 'stats' does not exist")
    XCTAssertTrue(lines.dropFirst().first?.hasPrefix("recorded 60 frames (2.00 s) to a.mp4") == true, stderr)
    XCTAssertEqual(lines.last, "camfx: error: --stats-json 'stats/s.json' not written: output directory 'stats' does not exist")
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("a.mp4"))["video"]?.frames), 60)
  }

  /// A folder on a kernel file system (/proc) exists, and root passes `access`, but it
  /// takes no new file: every output there is refused up front with that reason, not
  /// after the recording with a false "output directory '/proc' does not exist".
  func testOutputsUnderProcAreRefusedBeforeRecording() throws {
    let refused = "output directory '/proc' is on proc, a kernel file system that takes no new files"
    try assertFails(["record", "--frames", "3", "-o", "/proc/a.mp4"], stderr: "camfx: error: " + refused)
    try assertFails(["record", "--frames", "3", "--segment", "1s", "-o", "/proc/a-%03d.mp4"], stderr: "camfx: error: " + refused)
    try assertFails(
      ["record", "--frames", "3", "--stats-json", "/proc/s.json", "-o", "a.mp4"],
      stderr: "camfx: error: --stats-json '/proc/s.json': " + refused)
    try assertFails(
      ["record", "--frames", "3", "--pre-record", "1s", "--event-output", "/proc/ev.mp4", "-o", "a.mp4"],
      stderr: "camfx: error: --event-output '/proc/ev.mp4': " + refused)
    try assertFails(["snapshot", "-o", "/proc/s.png"], stderr: "camfx: error: " + refused)
    try assertFails(
      ["record", "--frames", "3", "--still", "/proc/still-%H%M%S.png", "-o", "a.mp4"],
      stderr: "camfx: error: --still '/proc/still-%H%M%S.png': " + refused)
  }

  func testFailureAfterOutputChecksLeavesNoFile() throws {
    // The output checks pass, then the source fails: nothing may be left behind.
    try snapshotFails(["--source", "/dev/video0"], "camfx: error: camera /dev/video0: no such device")
    try snapshotFails(["--size", "16x16", "--filter", "crop=width=32:height=8"], prefix: "camfx: error: filter 'crop'")
  }

  // MARK: usage errors (one camfx line, exit status 64)

  func testMissingOutputIsAUsageError() throws {
    let result = try CLI.run(["snapshot"], in: dir)
    XCTAssertEqual(result.status, 64)
    XCTAssertEqual(result.stderr, "camfx: error: missing expected argument '--output <out.png>' (see camfx --help)\n")
    XCTAssertEqual(try listing(), [])
  }

  func testNegativeFrameIsAUsageError() throws {
    let result = try CLI.run(["snapshot", "--frame=-1", "-o", "out.png"], in: dir)
    XCTAssertEqual(result.status, 64)
    XCTAssertEqual(result.stderr, "camfx: error: --frame must be at least 0 (see camfx --help)\n")
    XCTAssertEqual(try listing(), [])
  }
}

/// PNG bytes crafted for the error tests.
enum PNGHeader {
  /// A valid signature and IHDR (correct CRC) declaring 20000x20000 RGBA, then a stub
  /// IDAT: a reader that allocated before checking would need 1.6 GB.
  static var hugeImage: [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let ihdr = be32(20000) + be32(20000) + [8, 6, 0, 0, 0]
    return signature + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01])
      + chunk("IEND", [])
  }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be32(UInt32(data.count)) + body + be32(crc32(body))
  }

  static func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
