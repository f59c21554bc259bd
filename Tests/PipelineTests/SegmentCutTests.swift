import CFFmpeg
import Camfx
import CamfxFFmpeg
import Foundation
import XCTest

@testable import CamfxMedia

/// Where `SegmentedMovieOutput` puts the sound around a cut, whatever order the packets
/// come in: the sound encoder ahead of the video (its packets from after the cut come
/// before the keyframe) or behind it (a busy machine: its packets from before the cut
/// come after the keyframe). Each segment's sound starts at its cut, and the segments'
/// sound joins without a gap or an overlap. Read back with ffprobe.
final class SegmentCutTests: TranscodeTestCase {
  private func packet(_ stream: EncodedStream, pts: Int64, duration: Int64, keyframe: Bool) throws -> EncodedPacket {
    let p = try FFmpegPacket()
    XCTAssertEqual(av_new_packet(p.pointer, 16), 0)
    p.pointer.pointee.pts = pts
    p.pointer.pointee.dts = pts
    p.pointer.pointee.duration = duration
    p.pointer.pointee.flags = keyframe ? AV_PKT_FLAG_KEY : 0
    return try EncodedPacket(stream: stream, movingFrom: p.pointer)
  }

  /// Records 5 s of 25 fps video (a keyframe every second) and 48 kHz sound in 1024-sample
  /// packets into 1 s segments, the sound `soundLagSeconds` behind the video (negative:
  /// ahead); returns each segment's sound packets as (start, end) on the recording's clock.
  private func record(soundLagSeconds: Double) throws -> [[(Double, Double)]] {
    let video = try EncodedStream(video: "mjpeg", width: 64, height: 64, framesPerSecond: 25)
    let audioEncoder = try AudioEncoder(settings: AudioSettings(), globalHeader: true)
    let audio = try EncodedStream(kind: .audio, index: 1, encoder: audioEncoder.context.pointer)
    XCTAssertEqual(audio.timeBase.den, 48_000)
    let pattern = directory.appendingPathComponent("seg.mp4").path
    let output = try SegmentedMovieOutput(pattern: pattern, options: .init(interval: 1))
    try output.prepare(streams: [video, audio])
    // Each packet with the time it reaches the output: video at its own time, sound
    // `soundLagSeconds` after its own.
    var arrivals: [(Double, EncodedPacket)] = []
    for n in 0..<125 {
      let pts = Int64(n) * 40_000
      arrivals.append((Double(n) / 25, try packet(video, pts: pts, duration: 40_000, keyframe: n % 25 == 0)))
    }
    for n in 0..<(5 * 48_000 / 1024) {
      let pts = Int64(n) * 1024
      arrivals.append((Double(pts) / 48_000 + soundLagSeconds, try packet(audio, pts: pts, duration: 1024, keyframe: true)))
    }
    arrivals.sort { $0.0 < $1.0 }
    for (_, p) in arrivals { try output.write(p) }
    try output.finish()

    return try output.segments.map { segment in
      let csv = String(decoding: try runTool("ffprobe", [
        "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0",
        segment.name,
      ]), as: UTF8.self)
      return csv.split(separator: "\n").map { line in
        let f = line.split(separator: ",").compactMap { Double($0) }
        return (segment.start + f[0], segment.start + f[0] + f[1])
      }
    }
  }

  func testSoundGoesToTheSegmentOfItsTimeWhicheverStreamIsAhead() throws {
    for lag in [0.0, 0.15, -0.15, 0.6] {
      let segments = try record(soundLagSeconds: lag)
      XCTAssertEqual(segments.count, 5, "lag \(lag)")
      var previousEnd: Double?
      for (i, packets) in segments.enumerated() {
        let first = try XCTUnwrap(packets.first, "segment \(i), lag \(lag)")
        let last = try XCTUnwrap(packets.last)
        // The packet across the cut stays in the segment before it.
        XCTAssertGreaterThanOrEqual(first.0, Double(i) - 1e-6, "sound from before the cut in segment \(i), lag \(lag)")
        XCTAssertLessThan(first.0, Double(i) + 1024.0 / 48_000, "segment \(i), lag \(lag)")
        if let previousEnd { XCTAssertEqual(first.0, previousEnd, accuracy: 1024.0 / 48_000, "gap or overlap before segment \(i), lag \(lag)") }
        previousEnd = last.1
      }
      XCTAssertEqual(previousEnd ?? 0, 5, accuracy: 1024.0 / 48_000, "lag \(lag)")
      for segment in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        try FileManager.default.removeItem(at: directory.appendingPathComponent(segment))
      }
    }
  }
}
