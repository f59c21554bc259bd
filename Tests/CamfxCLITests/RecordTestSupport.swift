import Foundation
import XCTest

/// ffprobe/ffmpeg as independent oracles for what `camfx record` wrote.
enum MovieOracle {
  /// Runs `/usr/bin/<tool>` and returns its stdout; throws with its stderr on failure.
  static func run(_ tool: String, _ arguments: [String]) throws -> (stdout: Data, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    process.arguments = arguments
    let errPath = NSTemporaryDirectory() + "camfx-oracle-" + UUID().uuidString
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: errPath) }
    let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    let out = Pipe()
    process.standardOutput = out
    process.standardError = errHandle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try errHandle.close()
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    guard process.terminationStatus == 0 else {
      throw CLI.Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(err)")
    }
    return (data, err)
  }

  /// One stream as ffprobe sees it after decoding every frame.
  struct Stream {
    var codec: String
    var width: Int
    var height: Int
    var frames: Int
    var duration: Double
    /// Presentation times of the decoded frames, in decoding output order.
    var frameTimes: [Double]
  }

  /// The first video and audio streams of `path`, keyed "video" / "audio".
  static func probe(_ path: String) throws -> [String: Stream] {
    let data = try run("ffprobe", [
      "-v", "error", "-count_frames", "-show_streams", "-show_entries",
      "frame=stream_index,best_effort_timestamp_time:stream", "-of", "json", path,
    ]).stdout
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    let frames = json["frames"] as? [[String: Any]] ?? []
    var result: [String: Stream] = [:]
    for s in json["streams"] as? [[String: Any]] ?? [] {
      let type = s["codec_type"] as? String ?? "?"
      guard result[type] == nil else { continue }
      let index = s["index"] as? Int ?? -1
      result[type] = Stream(
        codec: s["codec_name"] as? String ?? "",
        width: s["width"] as? Int ?? 0,
        height: s["height"] as? Int ?? 0,
        frames: Int(s["nb_read_frames"] as? String ?? "") ?? -1,
        duration: Double(s["duration"] as? String ?? "") ?? -1,
        frameTimes: frames.filter { ($0["stream_index"] as? Int) == index }
          .compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap(Double.init) })
    }
    return result
  }

  /// The video frames of `path` decoded to yuv420p planes, one `[UInt8]` per frame.
  static func decodeYUV(_ path: String, width: Int, height: Int, frames: Int? = nil) throws -> [[UInt8]] {
    var args = ["-v", "error", "-i", path, "-map", "0:v:0"]
    if let frames { args += ["-frames:v", "\(frames)"] }
    args += ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
    let data = try run("ffmpeg", args).stdout
    let size = width * height * 3 / 2
    return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }
  }

  /// The luma (gray) plane of every video frame of `path`, or of an image.
  static func lumaFrames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
    let data = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"]).stdout
    let size = width * height
    return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }
  }

  /// Mean absolute difference of two planes over every 3rd sample (enough to tell frames
  /// apart, and fast in a debug build); infinity for planes of other sizes.
  static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0
    for i in stride(from: 0, to: a.count, by: 3) { total += abs(Int(a[i]) - Int(b[i])) }
    return Double(total) / Double((a.count + 2) / 3)
  }

  /// The audio of `path` decoded to mono S16 at `rate`.
  static func decodeMono(_ path: String, rate: Int = 48_000) throws -> [Int16] {
    let data = try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "\(rate)", "-f", "s16le", "-"]).stdout
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
  }

  /// The MD5 of each video packet's bytes in `path`, as stored (no decoding).
  static func videoPacketHashes(_ path: String) throws -> [String] {
    let text = String(decoding: try run("ffmpeg", [
      "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-",
    ]).stdout, as: UTF8.self)
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
  }

  /// The frequency (in `step` Hz steps over `range`) with the most energy (Goertzel).
  static func dominantFrequency(_ samples: ArraySlice<Int16>, rate: Int, range: ClosedRange<Int> = 100...4000, step: Int = 5) -> Int {
    var best = (frequency: 0, power: -1.0)
    for f in stride(from: range.lowerBound, through: range.upperBound, by: step) {
      let coefficient = 2 * cos(2 * Double.pi * Double(f) / Double(rate))
      var s1 = 0.0, s2 = 0.0
      for x in samples {
        let s = Double(x) + coefficient * s1 - s2
        s2 = s1
        s1 = s
      }
      let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
      if power > best.power { best = (f, power) }
    }
    return best.frequency
  }
}
