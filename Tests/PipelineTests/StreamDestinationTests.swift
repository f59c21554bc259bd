@testable import Camfx
import XCTest

/// What an output URL's query asks of camfx, read as libavformat reads it.
final class StreamDestinationTests: XCTestCase {
  /// How long the end of an SRT stream may wait for its receiver's acknowledgement:
  /// the URL's `linger=` as libavformat's `strtol` reads it, else 2 s; other URLs none.
  func testSRTLingerIsTheURLsAsLibavformatReadsItElseTwoSeconds() throws {
    let cases: [(String, Int?)] = [
      ("srt://127.0.0.1:9000", 2),
      ("srt://127.0.0.1:9000?latency=2000000&linger=7", 7),
      ("srt://127.0.0.1:9000?linger=0", 0),
      ("srt://127.0.0.1:9000?linger=", 0),
      ("srt://127.0.0.1:9000?linger=abc", 0),
      ("srt://127.0.0.1:9000?linger=1.5", 1),
      ("srt://127.0.0.1:9000?linger=+3", 3),
      ("srt://127.0.0.1:9000?linger=-1", 0),
      ("srt://127.0.0.1:9000?passphrase=xlinger=3", 2),
      ("rtmp://127.0.0.1/live/cam", nil),
      ("udp://127.0.0.1:9000", nil),
      ("live.m3u8", nil),
    ]
    for (url, seconds) in cases {
      XCTAssertEqual(try StreamDestination(parsing: url).srtLingerSeconds, seconds, url)
    }
  }
}
