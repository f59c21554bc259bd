import Camfx
import Foundation
import XCTest

final class HelpAndFiltersTests: CLITestCase {
  func testRootHelp() throws {
    let result = try CLI.run(["--help"], in: dir)
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.stderr, "")
    XCTAssertTrue(result.stdout.hasPrefix("""
      OVERVIEW: Record, filter and snapshot camera frames on Linux.

      USAGE: camfx <subcommand>

      """), result.stdout)
    XCTAssertTrue(result.stdout.contains("  snapshot                Write one filtered frame as a PNG.\n"), result.stdout)
    XCTAssertTrue(result.stdout.contains("  filters                 List the filters"), result.stdout)
  }

  func testSnapshotHelp() throws {
    let result = try CLI.run(["snapshot", "--help"], in: dir, environment: ["COLUMNS": "80"])
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.stdout, """
      OVERVIEW: Write one filtered frame as a PNG.

      The PNG is RGB, or RGBA when the frame has any transparent pixel (or with
      --alpha). It is written to a temporary file and renamed into place, so a failed
      snapshot leaves no file behind.

      USAGE: camfx snapshot [--source <source>] [--size <WxH>] [--filter <spec> ...] [--frame <n>] [--alpha] [--overwrite] --output <out.png>

      OPTIONS:
        --source <source>       testsrc, a PNG file (repeated as frames) or a camera
                                such as /dev/video0. (default: testsrc)
        --size <WxH>            Frame size of the test pattern (default 640x480). A
                                PNG source has its own size.
        --filter <spec>         NAME or NAME=KEY=VALUE:KEY=VALUE; repeat to chain, in
                                order (see `camfx filters`).
        --frame <n>             Which test-pattern frame to take (its counter shows
                                it). (default: 0)
        --alpha                 Always write an RGBA PNG.
        -y, --overwrite         Replace the output file if it exists.
        -o, --output <out.png>  The PNG file to write.
        -h, --help              Show help information.


      """)
  }

  func testUnknownSubcommandIsAUsageError() throws {
    let result = try CLI.run(["sparkle"], in: dir)
    XCTAssertEqual(result.status, 64)
    XCTAssertTrue(result.stderr.hasPrefix("Error: Unexpected argument 'sparkle'\n"), result.stderr)
  }

  func testFiltersListsEveryRegisteredFilter() throws {
    let result = try CLI.run(["filters"], in: dir)
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.stderr, "")
    XCTAssertEqual(result.stdout, FilterRegistry.builtin.catalog)
    for filter in FilterRegistry.builtin.filters {
      XCTAssertTrue(result.stdout.contains("\n\(filter.name): \(filter.summary)\n"), filter.name)
      XCTAssertTrue(result.stdout.contains("  example: \(filter.example)\n"), filter.name)
      for option in filter.options {
        XCTAssertTrue(result.stdout.contains("  \(option.key) "), "\(filter.name).\(option.key)")
        XCTAssertTrue(result.stdout.contains(option.kind.label), "\(filter.name).\(option.key)")
        XCTAssertTrue(result.stdout.contains(option.help), "\(filter.name).\(option.key)")
      }
    }
  }

  /// Every example `camfx filters` shows actually runs.
  func testEveryFilterExampleRuns() throws {
    for filter in FilterRegistry.builtin.filters {
      var args = filter.example.split(separator: " ").map(String.init)
      guard args.first == "camfx" else { XCTFail("\(filter.name): example must start with camfx"); continue }
      args.removeFirst()
      guard args.first == "snapshot" else { continue }  // record examples are tested with record
      let result = try CLI.run(args + ["-y"], in: dir)
      XCTAssertEqual(result.status, 0, "\(filter.example): \(result)")
    }
  }
}
