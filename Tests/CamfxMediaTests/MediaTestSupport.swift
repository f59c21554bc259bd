import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// Runs a tool (ffprobe, ffmpeg) and returns its standard output; fails the test on a
/// non-zero exit.
func runTool(_ tool: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
  process.arguments = arguments
  let out = Pipe()
  // stderr goes to a file, so a chatty tool cannot block on a second full pipe.
  let errPath = NSTemporaryDirectory() + "camfx-tool-stderr-" + UUID().uuidString
  _ = FileManager.default.createFile(atPath: errPath, contents: nil)
  defer { try? FileManager.default.removeItem(atPath: errPath) }
  let errHandle = try XCTUnwrap(FileHandle(forWritingAtPath: errPath))
  process.standardOutput = out
  process.standardError = errHandle
  try process.run()
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  try errHandle.close()
  let errData = FileManager.default.contents(atPath: errPath) ?? Data()
  guard process.terminationStatus == 0 else {
    let message = String(decoding: errData, as: UTF8.self)
    XCTFail("\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)", file: file, line: line)
    throw CocoaError(.fileReadUnknown)
  }
  return outData
}

/// What ffprobe says about one stream, with every packet's pts.
struct ProbedStream {
  var codec: String
  var width: Int
  var height: Int
  var frames: Int
  var duration: Double
  var sampleRate: Int
  var channels: Int
  var packetPTS: [Double]
}

/// Probes `path` with ffprobe (`-count_frames`, packets), one entry per stream type.
func probe(_ path: String) throws -> [String: ProbedStream] {
  let data = try runTool("ffprobe", [
    "-v", "error", "-count_frames", "-show_streams", "-show_packets", "-show_format", "-of", "json", path,
  ])
  let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
  let streams = json["streams"] as? [[String: Any]] ?? []
  let packets = json["packets"] as? [[String: Any]] ?? []
  var result: [String: ProbedStream] = [:]
  for s in streams {
    let type = s["codec_type"] as? String ?? "?"
    let index = s["index"] as? Int ?? -1
    let pts = packets.filter { ($0["stream_index"] as? Int) == index }
      .compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
    result[type] = ProbedStream(
      codec: s["codec_name"] as? String ?? "",
      width: s["width"] as? Int ?? 0,
      height: s["height"] as? Int ?? 0,
      frames: Int(s["nb_read_frames"] as? String ?? "") ?? -1,
      duration: Double(s["duration"] as? String ?? "") ?? -1,
      sampleRate: Int(s["sample_rate"] as? String ?? "") ?? 0,
      channels: s["channels"] as? Int ?? 0,
      packetPTS: pts)
  }
  return result
}

/// Decodes every video frame of `path` to yuv420p with the ffmpeg tool (an oracle
/// independent of camfx's reader).
func decodeYUV(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
  let data = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
  let frameSize = width * height * 3 / 2
  XCTAssertEqual(data.count % frameSize, 0)
  return stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map { Array(data[$0..<($0 + frameSize)]) }
}

/// Decodes the first audio stream of `path` to mono S16 at `rate`.
func decodeAudio(_ path: String, rate: Int) throws -> [Int16] {
  let data = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-ar", String(rate), "-"])
  return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// The power of `frequency` in `samples` (Goertzel), normalised by length.
func goertzel(_ samples: ArraySlice<Int16>, frequency: Double, rate: Int) -> Double {
  let w = 2 * Double.pi * frequency / Double(rate)
  let coefficient = 2 * cos(w)
  var s1 = 0.0, s2 = 0.0
  for x in samples {
    let s0 = Double(x) + coefficient * s1 - s2
    s2 = s1
    s1 = s0
  }
  let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
  return power / Double(samples.count * samples.count)
}

/// A unique path in a fresh temporary directory (removed by `removeTemporaryDirectory`).
final class TemporaryDirectory {
  let path: String
  init() throws {
    path = NSTemporaryDirectory() + "camfx-media-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
  func file(_ name: String) -> String { path + "/" + name }
  deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// BT.601 limited-range Y, U, V of one RGB colour (the converter's formula, in doubles).
func referenceYUV(r: Int, g: Int, b: Int) -> (y: Double, u: Double, v: Double) {
  let y = 16 + (65.481 * Double(r) + 128.553 * Double(g) + 24.966 * Double(b)) / 255
  let u = 128 + (-37.797 * Double(r) - 74.203 * Double(g) + 112.0 * Double(b)) / 255
  let v = 128 + (112.0 * Double(r) - 93.786 * Double(g) - 18.214 * Double(b)) / 255
  return (y, u, v)
}

/// Four flat quadrants: red, green, blue, and a grey whose level encodes `index`.
let quadrantColours: [(r: Int, g: Int, b: Int)] = [(220, 30, 30), (30, 200, 40), (20, 40, 210)]

func patternFrame(width: Int, height: Int, index: Int, timescale: Int32 = 30) -> PixelBuffer {
  let buffer = PixelBuffer(width: width, height: height, presentationTime: MediaTime(value: Int64(index), timescale: timescale))
  let grey = UInt8(40 + (index * 3) % 180)
  let colours = quadrantColours.map { BGRA(r: UInt8($0.r), g: UInt8($0.g), b: UInt8($0.b)) } + [BGRA(r: grey, g: grey, b: grey)]
  // Each quadrant is a cropped view filled at once (the per-pixel subscript is slow in debug builds).
  let halfW = width / 2, halfH = height / 2
  for q in 0..<4 {
    let x = q % 2 == 0 ? 0 : halfW, y = q < 2 ? 0 : halfH
    let w = q % 2 == 0 ? halfW : width - halfW, h = q < 2 ? halfH : height - halfH
    guard w > 0, h > 0 else { continue }
    var view = buffer
    view.crop(x: x, y: y, width: w, height: h)
    view.fill(colours[q])
  }
  return buffer
}

/// The top-level MP4 boxes of `path` in file order (`size == 1` boxes have a 64-bit size).
func topLevelBoxes(_ path: String) throws -> [String] {
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  var boxes: [String] = []
  var offset = 0
  while offset + 8 <= data.count {
    var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
    if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
    guard size >= 8 else { break }
    offset += size
  }
  return boxes
}
