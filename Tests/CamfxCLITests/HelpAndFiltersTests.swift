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
    XCTAssertTrue(result.stdout.contains("  snapshot                Write one filtered frame as a PNG or a JPEG.\n"), result.stdout)
    XCTAssertTrue(result.stdout.contains("  filters                 List the filters"), result.stdout)
  }

  /// The README is a user's first page: it has a section for every subcommand and
  /// names every one of their options (`-o` stands for `--output`).
  func testTheReadmeNamesEverySubcommandAndOption() throws {
    let readme = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md"),
      encoding: .utf8)
    let root = try CLI.run(["--help"], in: dir).stdout
    let section = try XCTUnwrap(root.components(separatedBy: "SUBCOMMANDS:").last)
    let subcommands = section.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), line.dropFirst(2).first != " ", let word = line.split(separator: " ").first,
        word.allSatisfy(\.isLowercase)
      else { return nil }
      return String(word)
    }
    XCTAssertGreaterThanOrEqual(subcommands.count, 11, root)
    let headings = readme.split(separator: "\n").filter { $0.hasPrefix("### camfx ") }
    for subcommand in subcommands {
      XCTAssertTrue(
        headings.contains { $0.contains("camfx \(subcommand) ") }, "the README has no section for camfx \(subcommand)")
      let help = try CLI.run([subcommand, "--help"], in: dir).stdout
      let options = Set(help.matches(of: /--[a-z0-9][a-z0-9-]*/).map { String($0.output) })
      for option in options.subtracting(["--help", "--output", "--version"]).sorted() {
        XCTAssertTrue(readme.contains(option), "the README does not name camfx \(subcommand) \(option)")
      }
    }
  }

  func testVersion() throws {
    let result = try CLI.run(["--version"], in: dir)
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.stdout, CamfxVersion.current + "\n")
    XCTAssertEqual(result.stderr, "")
  }

  func testSnapshotHelp() throws {
    let result = try CLI.run(["snapshot", "--help"], in: dir, environment: ["COLUMNS": "80"])
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.stdout, """
      OVERVIEW: Write one filtered frame as a PNG or a JPEG.

      The name's extension picks the format: .png (RGB, or RGBA when the frame has
      any transparent pixel, or with --alpha) or .jpg/.jpeg (quality 90). It is
      written to a temporary file and renamed into place, so a failed snapshot leaves
      no file behind.

      USAGE: camfx snapshot [--source <source>] [--size <WxH>] [--filter <spec> ...] [--frame <n>] [--input-format <format>] [--preset <preset>] [--skip <n>] [--control <name=value> ...] [--alpha] [--overwrite] --output <out.png>

      CAMERA OPTIONS:
        --input-format <format> Camera pixel format: mjpeg, h264, yuyv, nv12, yu12,
                                rgb24, bgr24 (default: the best the camera offers).
        --preset <preset>       Camera size preset: vga, 720p, 1080p, high (largest),
                                medium (640x480), low (320x240).
        --skip <n>              Camera frames to discard first, while exposure
                                settles. (default: 0)
        --control <name=value>  Set a camera control before capture, e.g.
                                brightness=140; repeatable (see `camfx controls`).

      OPTIONS:
        --source <source>       testsrc, a PNG file (repeated as frames) or a camera
                                such as /dev/video0 (default: the first camera, else
                                testsrc).
        --size <WxH>            Frame size of the test pattern or camera (default
                                640x480). A PNG source has its own size.
        --filter <spec>         NAME or NAME=KEY=VALUE:KEY=VALUE; repeat to chain, in
                                order (see `camfx filters`).
        --frame <n>             Which test-pattern frame to take (its counter shows
                                it). (default: 0)
        --alpha                 Always write an RGBA PNG.
        -y, --overwrite         Replace the output file if it exists.
        -o, --output <out.png>  The picture to write: a .png or .jpg name (strftime
                                fields allowed).
        --version               Show the version.
        -h, --help              Show help information.


      """)
  }

  func testUnknownSubcommandIsAUsageError() throws {
    let result = try CLI.run(["sparkle"], in: dir)
    XCTAssertEqual(result.status, 64)
    XCTAssertEqual(result.stderr, "camfx: error: unexpected argument 'sparkle' (see camfx --help)\n")
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
