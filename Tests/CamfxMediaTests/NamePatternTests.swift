@testable import Camfx
import Foundation
import XCTest

/// The one rule for names made from a pattern (-o, --segment, --event-output, --still,
/// snapshot -o).
final class NamePatternTests: XCTestCase {
  func testFieldsAreStrftimesWithFlagsWidthsAndModifiers() throws {
    XCTAssertEqual(try NamePattern.fields(in: "cam-%Y%m%d-%H%M%S.mp4", option: "-o"), ["%Y", "%m", "%d", "%H", "%M", "%S"])
    XCTAssertEqual(try NamePattern.fields(in: "%-d %_H %010s %Ey %OH %^a %#b %F", option: "-o"),
                   ["%-d", "%_H", "%010s", "%Ey", "%OH", "%^a", "%#b", "%F"])
    XCTAssertEqual(try NamePattern.fields(in: "100%%.mp4", option: "-o"), [])
    XCTAssertTrue(NamePattern.hasFields("a-%j.mp4"))
    XCTAssertFalse(NamePattern.hasFields("100%%.mp4"))
    XCTAssertFalse(NamePattern.hasFields("rec.mp4"))
  }

  func testUnknownFieldsAreErrorsNamingTheOption() {
    let cases: [(String, String)] = [
      ("cam-%Q.mp4", "-o 'cam-%Q.mp4': unknown field '%Q' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)"),
      ("a-%n.mp4", "-o 'a-%n.mp4': unknown field '%n' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)"),
      ("a-%-Q.mp4", "-o 'a-%-Q.mp4': unknown field '%-Q' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)"),
      ("a-%+.mp4", "-o 'a-%+.mp4': unknown field '%+' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)"),
      ("100%", "-o '100%' ends with a lone '%': write %% for a percent sign"),
    ]
    for (pattern, message) in cases {
      XCTAssertThrowsError(try NamePattern.check(pattern, option: "-o"), pattern) { error in
        XCTAssertEqual(error as? MediaSettingsError, MediaSettingsError(message))
      }
    }
  }

  func testExpansionIsLocalTimeAndPercentSigns() {
    // 2001-09-09 01:46:40 UTC is in 2001 in every time zone.
    XCTAssertEqual(NamePattern.expand("cam-%Y.mp4", at: 1_000_000_000), "cam-2001.mp4")
    XCTAssertEqual(NamePattern.expand("100%%-%Y.mp4", at: 1_000_000_000), "100%-2001.mp4")
    XCTAssertEqual(NamePattern.expand("rec.mp4", at: 1_000_000_000), "rec.mp4")
    var names = SegmentNames(pattern: "/nonexistent-camfx/100%%.mp4", overwrite: false)
    XCTAssertEqual(names.next(at: 0), "/nonexistent-camfx/100%-000.mp4", "a pattern of no fields is numbered, its %% a %")
  }
}
