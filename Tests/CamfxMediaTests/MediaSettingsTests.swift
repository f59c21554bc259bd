import CamfxCore
import CamfxMedia
import Foundation
import XCTest

final class MediaSettingsTests: XCTestCase {
  func testBitrateParsing() throws {
    XCTAssertEqual(try Bitrate.parse("4M"), 4_000_000)
    XCTAssertEqual(try Bitrate.parse("800k"), 800_000)
    XCTAssertEqual(try Bitrate.parse("1.5M"), 1_500_000)
    XCTAssertEqual(try Bitrate.parse("128000"), 128_000)
    XCTAssertEqual(try Bitrate.parse("64K"), 64_000)
    XCTAssertEqual(Bitrate.format(4_000_000), "4M")
    XCTAssertEqual(Bitrate.format(800_000), "800k")
    for bad in ["abc", "", "M", "-4M", "4G", "4 M", "0", "1e3"] {
      XCTAssertThrowsError(try Bitrate.parse(bad), bad) { error in
        XCTAssertTrue("\(error)".hasPrefix("invalid bitrate '\(bad)'"), "\(error)")
      }
    }
    XCTAssertEqual(
      captureError { try Bitrate.parse("abc") }.map { "\($0)" },
      "invalid bitrate 'abc': expected a number with an optional k or M suffix, e.g. 4M or 800k")
  }

  private func captureError(_ body: () throws -> Any) -> Error? {
    do { _ = try body(); return nil } catch { return error }
  }

  private func writerError(_ settings: MovieSettings, path: String = "/tmp/camfx-never-written.mp4") -> String {
    let error = captureError { try MovieWriter(path: path, settings: settings) }
    XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    return error.map { "\($0)" } ?? "no error"
  }

  func testBadSettingsAreClearErrorsBeforeAnyFileExists() {
    var v = VideoSettings(width: 640, height: 360)
    v.codec = "h265x"
    XCTAssertTrue(
      writerError(MovieSettings(video: v)).hasPrefix(
        "FFmpeg has no encoder 'h265x'; the video encoders that take yuv420p here: "),
      writerError(MovieSettings(video: v)))
    XCTAssertTrue(writerError(MovieSettings(video: v)).contains("libx264, libx265"))
    v = VideoSettings(width: 640, height: 360)
    v.codec = "aac"
    XCTAssertEqual(writerError(MovieSettings(video: v)), "'aac' is not a video encoder")
    XCTAssertEqual(
      writerError(MovieSettings(video: VideoSettings(width: 641, height: 360))),
      "frame size 641x360 has an odd side; H.264 in yuv420p needs an even width and height (crop to e.g. 640x360)")
    XCTAssertEqual(
      writerError(MovieSettings(video: VideoSettings(width: 640, height: 360)), path: "/tmp/camfx-never-written.avi"),
      "unsupported output file '/tmp/camfx-never-written.avi' ('.avi'); use .mp4, .mov or .mkv")
    v = VideoSettings(width: 640, height: 360)
    v.preset = "turbo"
    XCTAssertTrue(writerError(MovieSettings(video: v)).hasPrefix("unknown x264 preset 'turbo'"))
    v = VideoSettings(width: 640, height: 360)
    v.profile = .baseline
    v.bframes = 2
    XCTAssertEqual(
      writerError(MovieSettings(video: v)),
      "the baseline profile has no B-frames; use --bframes 0 or another profile")
    v = VideoSettings(width: 640, height: 360)
    v.rateControl = .crf(60)
    XCTAssertEqual(writerError(MovieSettings(video: v)), "invalid crf '60.0': must be between 0 and 51")
    var a = AudioSettings()
    a.sampleRate = 12345
    XCTAssertTrue(writerError(MovieSettings(video: VideoSettings(width: 64, height: 64), audio: a)).hasPrefix("AAC does not support sample rate 12345"))
    a = AudioSettings()
    a.codec = "mp5"
    XCTAssertEqual(
      writerError(MovieSettings(video: VideoSettings(width: 64, height: 64), audio: a)),
      "unknown audio codec 'mp5' (FFmpeg has no encoder by that name; try aac)")
  }

  func testProfileParsing() throws {
    XCTAssertEqual(try VideoSettings.Profile(parsing: "High"), .high)
    XCTAssertEqual(try VideoSettings.Profile(parsing: "baseline"), .baseline)
    XCTAssertEqual(
      "\(captureError { try VideoSettings.Profile(parsing: "extreme") }!)",
      "unknown H.264 profile 'extreme' (expected baseline, main or high)")
  }

  func testProfileAndBitrateReachTheStream() throws {
    let dir = try TemporaryDirectory()
    for profile in VideoSettings.Profile.allCases {
      let path = dir.file("\(profile).mp4")
      var v = VideoSettings(width: 160, height: 120)
      v.profile = profile
      // Not "ultrafast": it turns off CABAC and 8x8 transforms, so x264 would signal
      // (constrained) baseline whatever profile it was allowed.
      v.rateControl = .bitrate(try Bitrate.parse("300k"))
      let writer = try MovieWriter(path: path, settings: MovieSettings(video: v))
      for i in 0..<3 {
        try writer.append(patternFrame(width: 160, height: 120, index: i))
      }
      try writer.finish()
      let out = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0", path])
      let name = String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
      XCTAssertEqual(name, profile == .baseline ? "constrained baseline" : profile.rawValue, "\(profile)")
    }
  }
}
