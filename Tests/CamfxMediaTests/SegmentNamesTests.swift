@testable import Camfx
import Foundation
import XCTest

final class SegmentNamesTests: XCTestCase {
  func testNumberedNamesGoBeforeTheExtension() {
    var names = SegmentNames(pattern: "/nonexistent-camfx/rec.mp4", overwrite: false)
    XCTAssertEqual((0..<3).map { _ in names.next(at: 0) },
      ["/nonexistent-camfx/rec-000.mp4", "/nonexistent-camfx/rec-001.mp4", "/nonexistent-camfx/rec-002.mp4"])
    XCTAssertEqual(SegmentNames.insert("7", into: "a.b/rec"), "a.b/rec-7")
  }

  func testTimeNamesGetACounterOnACollisionAndNeverReplaceAFile() throws {
    let dir = try TemporaryDirectory()
    var names = SegmentNames(pattern: dir.file("cam-%Y.mkv"), overwrite: false)
    // 2001-09-09 01:46:40 UTC is in 2001 in every time zone.
    let first = names.next(at: 1_000_000_000)
    XCTAssertEqual(first, dir.file("cam-2001.mkv"))
    XCTAssertEqual(names.next(at: 1_000_000_000), dir.file("cam-2001-1.mkv"))
    FileManager.default.createFile(atPath: dir.file("cam-2001-2.mkv"), contents: Data())
    XCTAssertEqual(names.next(at: 1_000_000_000), dir.file("cam-2001-3.mkv"))
  }
}
