import Camfx
import CamfxPNG
import Foundation
import XCTest

/// Motion detection as a user runs it: `record --motion` making event clips of a movie,
/// and `camfx motion` replaying it to tune the detector.
final class MotionCommandTests: CLITestCase {
  /// A 14 s, 320x240 movie of a textured background with sensor noise (Gaussian, σ 3
  /// levels) and a 48x48 box that appears at 6.0 s, moves right and leaves at 9.0 s;
  /// a keyframe every second.
  private func makeBoxMovie(_ name: String) throws {
    let width = 320, height = 240, frames = 420
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func uniform() -> Double {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    let noise: [Int] = (0..<(1 << 18)).map { _ in
      Int(((-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) * 3).rounded())
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = [
      "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "\(width)x\(height)", "-r", "30", "-i", "-",
      "-pix_fmt", "yuv420p", "-c:v", "libx264", "-g", "30", "-preset", "veryfast", path(name),
    ]
    let input = Pipe()
    process.standardInput = input
    try process.run()
    var picture = [UInt8](repeating: 0, count: width * height)
    for index in 0..<frames {
      let time = Double(index) / 30
      let boxX = time >= 6 - 1e-9 && time < 9 - 1e-9 ? 40 + Int((time - 6) * 60) : -1000
      let start = index * 7919
      picture.withUnsafeMutableBufferPointer { p in
        noise.withUnsafeBufferPointer { n in
          for y in 0..<height {
            let inBox = y >= 96 && y < 144
            for x in 0..<width {
              var value = 60 + x >> 3 + y >> 3
              if inBox && x >= boxX && x < boxX + 48 { value = 220 }
              value += n[(start + y * width + x) & ((1 << 18) - 1)]
              p[y * width + x] = UInt8(max(0, min(255, value)))
            }
          }
        }
      }
      try input.fileHandleForWriting.write(contentsOf: Data(picture))
    }
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "ffmpeg made the test movie")
  }

  private func packetSizes(_ file: String) throws -> [Int] {
    String(
      decoding: try MovieOracle.run(
        "ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=size", "-of", "csv=p=0", path(file)]
      ).stdout, as: UTF8.self
    ).split(separator: "\n").compactMap { Int($0) }
  }

  func testMotionMakesOneClipFromItsPreRollToItsPostRoll() throws {
    try makeBoxMovie("box.mp4")
    let result = try CLI.run(
      [
        "record", "--input", "box.mp4", "--motion", "--pre-record", "3s", "--post-record", "2s", "--gop", "30",
        "--event-output", "ev-%H%M%S.mp4", "--on-event-end", "sh -c 'sleep 1; echo $CAMFX_EVENT_SCORE > score.txt'", "-o", "all.mp4",
      ], in: dir)
    XCTAssertEqual(result.status, 0, result.stderr)
    let clips = try listing().filter { $0.hasPrefix("ev-") && $0.hasSuffix(".mp4") }
    XCTAssertEqual(clips.count, 1, result.stderr)
    let clip = try XCTUnwrap(clips.first)
    let sidecar = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(clip.replacingOccurrences(of: ".mp4", with: ".json")))))
        as? [String: Any])
    XCTAssertEqual(sidecar["trigger"] as? String, "motion")
    XCTAssertEqual(sidecar["triggered_at"] as? Double ?? 0, 6.0, accuracy: 0.1, "\(sidecar)")
    // From the keyframe at or before 3.0 s (one a second) to 2 s after the box left.
    let start = try XCTUnwrap(sidecar["start"] as? Double), end = try XCTUnwrap(sidecar["end"] as? Double)
    XCTAssertLessThanOrEqual(start, 3.0 + 1e-6, "\(sidecar)")
    XCTAssertGreaterThan(start, 2.0 - 1e-6, "\(sidecar)")
    XCTAssertEqual(end, 11.0, accuracy: 1.0 / 30 + 1e-6, "\(sidecar)")
    // Its packets are the continuous recording's over the same span, keyframe first.
    let all = try packetSizes("all.mp4"), mine = try packetSizes(clip)
    let first = Int((start * 30).rounded())
    XCTAssertEqual(mine, Array(all[first..<min(all.count, first + mine.count)]))
    XCTAssertEqual(mine.count, Int(((end - start) * 30).rounded()))
    let flags = try MovieOracle.run(
      "ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", path(clip)])
    XCTAssertTrue(String(decoding: flags.stdout, as: UTF8.self).hasPrefix("K"))
    // The peak: the box's share of the picture (48x48 of 320x240 is 3%), its box, and
    // the event's picture at that moment showing it.
    let score = try XCTUnwrap(sidecar["score"] as? Double)
    XCTAssertEqual(score, 3.0, accuracy: 0.6)
    let scoreAt = try XCTUnwrap(sidecar["score_at"] as? Double)
    let box = try XCTUnwrap((sidecar["boxes"] as? [[String: Int]])?.first)
    XCTAssertEqual(Double(box["x"] ?? 0), 40 + (scoreAt - 6) * 60, accuracy: 6, "\(sidecar)")
    XCTAssertEqual(box["y"] ?? 0, 96, "\(sidecar)")
    let picture = try PNGFile.read(path: path(clip.replacingOccurrences(of: ".mp4", with: ".png")))
    let inside = picture[(box["x"] ?? 0) + 24, 120], outside = picture[300, 20]
    XCTAssertGreaterThan(Int(inside.g), 200, "the box is in the picture")
    XCTAssertLessThan(Int(outside.g), 140, "the background is not")
    // The end hook of the last clip has ended before camfx exits (it sleeps first).
    XCTAssertEqual(Double((try? String(contentsOfFile: path("score.txt"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0, score, accuracy: 0.01)
    // camfx events filters by the peak score.
    let strong = try CLI.run(["events", ".", "--min-score", "2"], in: dir)
    XCTAssertEqual(strong.stdout.split(separator: "\n").count, 1, "\(strong)")
    XCTAssertTrue(strong.stdout.contains("  motion  "), strong.stdout)
    XCTAssertEqual(try CLI.run(["events", ".", "--min-score", "5"], in: dir).stdout, "")
  }

  func testMotionReplaysAMovieWithItsScoresAndAPlot() throws {
    try makeBoxMovie("box.mp4")
    let result = try CLI.run(
      ["motion", "box.mp4", "--pre-record", "3s", "--post-record", "2s", "--csv", "scores.csv", "--plot", "plot.png", "--plot-size", "600x200"],
      in: dir)
    XCTAssertEqual(result.status, 0, result.stderr)
    let lines = result.stdout.split(separator: "\n")
    XCTAssertEqual(lines.count, 1, result.stdout)
    let times = try XCTUnwrap(lines.first).split(separator: " ")[2].split(separator: "–")
    XCTAssertEqual(Double(times[0]) ?? 0, 6.0, accuracy: 0.1, result.stdout)
    XCTAssertEqual(Double(times[1]) ?? 0, 9.0, accuracy: 0.1, result.stdout)
    XCTAssertTrue(result.stdout.contains("; clip from the keyframe at or before 3.00 s to 11.00 s"), result.stdout)
    // One row per frame, the box's frames in motion.
    let rows = try String(contentsOfFile: path("scores.csv"), encoding: .utf8).split(separator: "\n")
    XCTAssertEqual(rows.count, 421)
    XCTAssertEqual(rows.first, "time,score,threshold,zone,pixel_threshold,noise,brightness,changed,moving,light_switch,boxes")
    let moving = rows.dropFirst().filter { $0.split(separator: ",", omittingEmptySubsequences: false)[8] == "1" }
    XCTAssertEqual(Double(moving.count), 90, accuracy: 3)
    // The plot: its size, the threshold's red line across it, the score's blue above it
    // while the box is there, and motion shaded.
    let plot = try PNGFile.read(path: path("plot.png"))
    XCTAssertEqual([plot.width, plot.height], [600, 200])
    let red = { (p: BGRA) in p.r > 180 && p.g < 80 && p.b < 80 }
    let blue = { (p: BGRA) in p.b > 150 && p.r < 80 }
    let redRows = (0..<200).filter { y in (20..<580).allSatisfy { x in red(plot[x, y]) || blue(plot[x, y]) } }
    XCTAssertFalse(redRows.isEmpty, "a threshold line crosses the plot")
    let thresholdY = try XCTUnwrap(redRows.first)
    let xAt = { (t: Double) in 8 + Int(t / 14 * 584) }
    XCTAssertTrue((0..<thresholdY - 2).contains { y in blue(plot[xAt(7.5), y]) }, "the score is above it at 7.5 s")
    XCTAssertFalse((0..<thresholdY - 2).contains { y in blue(plot[xAt(3), y]) }, "and not at 3 s")
    let shade = plot[xAt(7.5), 12]
    XCTAssertEqual([shade.r, shade.g, shade.b], [255, 220, 225], "motion is shaded")
    XCTAssertEqual(plot[xAt(3), 12], BGRA(b: 255, g: 255, r: 255, a: 255))
  }

  /// The detector's score and boxes in /state, and outlined on the MJPEG stream when
  /// asked, never in the recording.
  func testBoxesReachStateAndThePreviewButNotTheRecording() throws {
    try makeBoxMovie("box.mp4")
    let port = try LocalServer.freePort()
    let process = try CLI.start(
      [
        "record", "--input", "box.mp4", "--realtime", "--motion", "--preview", "127.0.0.1:\(port)",
        "--preview-motion-boxes", "--stats-json", "stats.json", "--quiet", "-o", "all.mp4",
      ], in: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var motion: [String: Any]? = nil
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline {
      if LocalServer.isListening(tcp: port), let answer = try? HTTPProbe.get(port: port, path: "/state", seconds: 2),
        let state = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
        let found = state["motion"] as? [String: Any], found["moving"] as? Bool == true,
        let time = found["time"] as? Double, time > 7
      {
        motion = found
        break
      }
      usleep(100_000)
    }
    let state = try XCTUnwrap(motion, "no moving state by 15 s")
    XCTAssertEqual(state["width"] as? Int, 320)
    XCTAssertEqual(state["height"] as? Int, 240)
    XCTAssertEqual(state["score"] as? Double ?? 0, 3, accuracy: 0.6, "\(state)")
    let box = try XCTUnwrap((state["boxes"] as? [[String: Int]])?.first, "\(state)")
    XCTAssertEqual(box["y"], 96, "\(state)")
    // A picture from the stream while the box moves: its outline is red.
    let stream = try HTTPProbe.get(port: port, path: "/stream.mjpeg", seconds: 0.6)
    let jpeg = try XCTUnwrap(HTTPProbe.jpegParts(stream.body).last, "no JPEG")
    try jpeg.write(to: URL(fileURLWithPath: path("part.jpg")))
    let rgb = [UInt8](try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("part.jpg"), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout)
    XCTAssertEqual(rgb.count, 320 * 240 * 3)
    let redRows = (0..<240).filter { y in
      (0..<320).filter { x in
        let i = (y * 320 + x) * 3
        return rgb[i] > 150 && rgb[i + 1] < 110 && rgb[i + 2] < 110
      }.count >= 30
    }
    XCTAssertFalse(redRows.isEmpty, "a box's red edge in the preview")
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    // The recording has no red: its colour planes are the movie's grey.
    let frame = try MovieOracle.run(
      "ffmpeg", ["-v", "error", "-ss", "7.5", "-i", path("all.mp4"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
    ).stdout
    let chroma = [UInt8](frame.dropFirst(320 * 240))
    XCTAssertEqual(chroma.count, 320 * 240 / 2)
    XCTAssertLessThanOrEqual(chroma.map { abs(Int($0) - 128) }.max() ?? 99, 3)
    // --stats-json says what the detector did.
    let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("stats.json")))) as? [String: Any])
    let figures = try XCTUnwrap(stats["motion"] as? [String: Any], "\(stats)")
    XCTAssertEqual(figures["frames"] as? Int, 420)
    XCTAssertEqual(figures["motions"] as? Int, 1)
    XCTAssertGreaterThan(figures["mean_us"] as? Double ?? 0, 0)
  }

  func testBadMotionOptionsAreOneLineErrors() throws {
    try makeBoxMovie("box.mp4")
    try assertFails(
      ["record", "--input", "box.mp4", "--motion-area", "2%", "-o", "a.mp4"],
      stderr: "camfx: error: --motion-area tunes motion detection: add --motion", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--motion-zone", "door:0,0 400,0 400,100"],
      stderr: "camfx: error: zone 'door': the point 400,0 is outside the 320x240 picture", keep: ["box.mp4"])
    try assertFails(
      ["record", "--input", "box.mp4", "--motion", "--motion-ignore", "0,0 10,0 10,500", "-o", "a.mp4"],
      stderr: "camfx: error: --motion-ignore: the point 10,500 is outside the 320x240 picture", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--motion-zone", ":0,0 10,0 10,10"],
      stderr: "camfx: error: --motion-zone: ':0,0 10,0 10,10': a zone needs a name (NAME:X,Y X,Y X,Y)", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--motion-threshold", "300"],
      stderr: "camfx: error: --motion-threshold '300' must be a whole number of luma levels from 1 to 255", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--motion-area", "0"],
      stderr: "camfx: error: --motion-area '0' must be a percentage from 0.01 to 100", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--plot", "p.png", "--plot-size", "0x240"],
      stderr: "camfx: error: --plot-size: invalid size '0x240': width and height must be at least 1", keep: ["box.mp4"])
    try assertFails(
      ["motion", "box.mp4", "--post-record", "-1"],
      stderr: "camfx: error: --post-record: invalid duration '-1': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)",
      keep: ["box.mp4"])
    let kept = ["box.mp4", "small.pgm"]
    try "P5 64 48 255\n".write(toFile: path("small.pgm"), atomically: true, encoding: .utf8)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path("small.pgm")))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(repeating: 255, count: 64 * 48))
    try handle.close()
    try assertFails(
      ["motion", "box.mp4", "--motion-mask", "small.pgm"],
      stderr: "camfx: error: the mask 'small.pgm' is 64x48, the picture 320x240: make them the same size", keep: kept)
    try assertFails(
      ["motion", "box.mp4", "--motion-mask", "none.pgm"],
      stderr: "camfx: error: cannot read the mask 'none.pgm': No such file or directory", keep: kept)
    try assertFails(
      ["motion", "box.mp4", "--csv", "no/such/dir/s.csv"],
      stderr: "camfx: error: cannot write 'no/such/dir/s.csv': its folder 'no/such/dir' does not exist", keep: kept)
  }
}
