import Camfx
import Foundation
import XCTest

final class OutputFileTests: CLITestCase {
  private struct Boom: Error {}

  private func contents(_ name: String) throws -> String {
    try String(contentsOf: URL(fileURLWithPath: path(name)), encoding: .utf8)
  }

  private func reason(_ body: () throws -> Void) -> OutputFileError.Reason? {
    do {
      try body()
      return nil
    } catch let error as OutputFileError {
      return error.reason
    } catch {
      XCTFail("unexpected \(error)")
      return nil
    }
  }

  func testWriteRenamesIntoPlaceAndLeavesNoTemporaryFile() throws {
    let output = try OutputFile(path: path("a.txt"), overwrite: false)
    var seen = ""
    try output.write { temporary in
      seen = temporary
      XCTAssertNotEqual(temporary, path("a.txt"))
      XCTAssertTrue(temporary.hasSuffix("a.txt"), "keeps the extension")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("a.txt")), "nothing under the real name yet")
      try "done".write(toFile: temporary, atomically: false, encoding: .utf8)
    }
    XCTAssertEqual(try contents("a.txt"), "done")
    XCTAssertEqual(try listing(), ["a.txt"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: seen))
  }

  func testFailureDeletesTheTemporaryFile() throws {
    let output = try OutputFile(path: path("a.txt"), overwrite: false)
    XCTAssertThrowsError(try output.write { temporary in
      try "half".write(toFile: temporary, atomically: false, encoding: .utf8)
      throw Boom()
    }) { XCTAssertTrue($0 is Boom) }
    XCTAssertEqual(try listing(), [])
  }

  func testDroppingAStagedFileDiscardsIt() throws {
    do {
      let staged = try OutputFile(path: path("a.txt"), overwrite: false).begin()
      XCTAssertTrue(FileManager.default.fileExists(atPath: staged.temporaryPath))
    }
    XCTAssertEqual(try listing(), [])
  }

  func testExistingFileNeedsOverwrite() throws {
    try "old".write(toFile: path("a.txt"), atomically: false, encoding: .utf8)
    XCTAssertEqual(reason { _ = try OutputFile(path: path("a.txt"), overwrite: false) }, .exists)
    try OutputFile(path: path("a.txt"), overwrite: true).write { try "new".write(toFile: $0, atomically: false, encoding: .utf8) }
    XCTAssertEqual(try contents("a.txt"), "new")
    XCTAssertEqual(try listing(), ["a.txt"])
  }

  func testFileAppearingWhileWritingIsNotReplacedWithoutOverwrite() throws {
    let output = try OutputFile(path: path("a.txt"), overwrite: false)
    XCTAssertEqual(reason {
      try output.write { temporary in
        try "mine".write(toFile: temporary, atomically: false, encoding: .utf8)
        try "theirs".write(toFile: self.path("a.txt"), atomically: false, encoding: .utf8)
      }
    }, .exists)
    XCTAssertEqual(try contents("a.txt"), "theirs")
    XCTAssertEqual(try listing(), ["a.txt"])
  }

  func testBadDestinations() throws {
    XCTAssertEqual(reason { _ = try OutputFile(path: "", overwrite: true) }, .emptyPath)
    XCTAssertEqual(reason { _ = try OutputFile(path: path("no/a.txt"), overwrite: true) }, .directoryMissing(path("no")))
    try "x".write(toFile: path("f"), atomically: false, encoding: .utf8)
    XCTAssertEqual(reason { _ = try OutputFile(path: path("f/a.txt"), overwrite: true) }, .notADirectory(path("f")))
    try FileManager.default.createDirectory(atPath: path("d"), withIntermediateDirectories: false)
    XCTAssertEqual(reason { _ = try OutputFile(path: path("d"), overwrite: true) }, .isDirectory)
  }

  /// The folder check creates a file to know: `access` says yes to root on /proc.
  func testAFolderThatTakesNoFilesIsRefusedWithItsReason() throws {
    XCTAssertEqual(
      reason { try OutputFile(path: "/proc/a.mp4", overwrite: true).requireWritableDirectory() },
      .directoryRefusesFiles("/proc", fileSystem: "proc"))
    XCTAssertEqual(reason { _ = try OutputFile(path: "/proc/a.mp4", overwrite: true).begin() }, .directoryRefusesFiles("/proc", fileSystem: "proc"))
    XCTAssertNil(reason { try OutputFile(path: path("a.mp4"), overwrite: true).requireWritableDirectory() })
    XCTAssertEqual(try listing(), [], "the probe file is gone")
  }

  func testDirectoryAndFileNames() throws {
    let bare = try OutputFile(path: "x.png", overwrite: true)
    XCTAssertEqual(bare.directory, ".")
    XCTAssertEqual(bare.fileName, "x.png")
    let nested = try OutputFile(path: "/tmp/x.png", overwrite: true)
    XCTAssertEqual(nested.directory, "/tmp")
    XCTAssertEqual(nested.fileName, "x.png")
    XCTAssertEqual(try OutputFile(path: "/x.png", overwrite: true).directory, "/")
  }

  func testErrorMessages() {
    XCTAssertEqual(
      OutputFileError(path: "a/b.png", reason: .directoryNotWritable("a", errno: EACCES)).description,
      "output directory 'a' is not writable (Permission denied)")
    XCTAssertEqual(
      OutputFileError(path: "b.png", reason: .exists).description,
      "output file 'b.png' already exists (use -y or --overwrite to replace it)")
  }
}
