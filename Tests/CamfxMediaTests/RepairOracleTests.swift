import CFFmpeg
import Camfx
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
import Foundation
import XCTest

/// Repair's promise as a property, checked by an oracle that does not share its code:
/// over recordings of several shapes, one bit of one fragment's `moof` (or its `mdat`
/// header) flipped, and the file repaired. libavformat then reads the repaired file
/// and the repaired undamaged file, and
/// - every packet of every fragment whose bytes were not touched is there, with the
///   same decode and presentation times and keyframe flag (repair moves no media, so
///   a packet is known by its position and size);
/// - a packet of the damaged fragment is there with those same times, or left out;
///   nothing else is there (no invented sample, no moved time);
/// - the file lasts no longer than the undamaged one, and at most one fragment less;
/// - the report says "everything intact" exactly when nothing was left out, and
///   otherwise names intervals that hold every packet left out.
///
/// `make test` flips one bit of every third byte (a different bit each time);
/// CAMFX_REPAIR_ORACLE=full flips every bit of every byte (benchmarks/repair-oracle.sh).
final class RepairOracleTests: XCTestCase {
  struct Shape: CustomStringConvertible {
    var fragment: Double
    var bframes: Int
    var audio: String?
    var frames: Int
    var description: String {
      "\(fragment) s fragments, \(bframes) B-frames, \(audio ?? "no sound")"
    }
  }

  static let shapes = [
    Shape(fragment: 1, bframes: 0, audio: "aac", frames: 170),
    Shape(fragment: 0.5, bframes: 2, audio: "aac", frames: 110),
    Shape(fragment: 1, bframes: 0, audio: "libopus", frames: 170),
    Shape(fragment: 0.5, bframes: 2, audio: "libopus", frames: 110),
    Shape(fragment: 0.5, bframes: 0, audio: nil, frames: 110),
  ]

  /// A packet as libavformat reads it from a finished file.
  struct Packet: Hashable {
    var stream: Int
    var position: Int64
    var size: Int32
    var pts: Double
    var dts: Double
    var keyframe: Bool
    var identity: [Int64] { [Int64(stream), position, Int64(size)] }
  }

  /// Writes `shape` and returns the file as a crash leaves it: fragmented, ending on a
  /// whole fragment.
  func crashedRecording(_ shape: Shape, in dir: TemporaryDirectory, sampleRate: Int = 48_000) throws -> [UInt8] {
    let path = dir.file("rec.mp4")
    let snapshot = dir.file("crashed.mp4")
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    video.bframes = shape.bframes
    video.rateControl = .crf(30)
    let writer = try MovieWriter(
      path: path, settings: MovieSettings(video: video, audio: shape.audio.map { AudioSettings(codec: $0, sampleRate: sampleRate) }),
      file: MovieFileOutput.Options(fragmentInterval: shape.fragment, overwrite: true))
    writer.startSession(atSourceTime: .zero)
    let drawn = (0..<8).map { patternFrame(width: 160, height: 120, index: $0 * 7) }
    var sine = try SineAudioSource(frequency: 440, sampleRate: sampleRate, channels: 2)
    for i in 0..<shape.frames {
      var frame = drawn[i % drawn.count]
      frame.presentationTime = MediaTime(value: Int64(i), timescale: 30)
      try writer.append(frame)
      if shape.audio != nil, let pcm = sine.nextBuffer(upTo: MediaTime(value: Int64(i + 1), timescale: 30)) {
        try writer.append(audio: pcm)
      }
    }
    // The file as it is on disk before the finish: wait until the worker has written
    // all but the encoder's last few frames.
    let deadline = Date().addingTimeInterval(10)
    while writer.recordedOutputs[0].videoPacketsWritten < shape.frames - 12, Date() < deadline { usleep(5_000) }
    try FileManager.default.copyItem(atPath: path, toPath: snapshot)
    try writer.finish()
    var bytes = Array(try XCTUnwrap(FileManager.default.contents(atPath: snapshot)))
    // End on the last whole fragment: the oracle is about damage, not a torn tail.
    if let last = fragmentBoxes(bytes).last { bytes = Array(bytes.prefix(last.end)) }
    return bytes
  }

  /// Every packet of the file at `path`, and its duration in seconds.
  func packets(_ path: String) throws -> (packets: [Packet], duration: Double) {
    var context: UnsafeMutablePointer<AVFormatContext>? = nil
    guard avformat_open_input(&context, path, nil, nil) == 0, let context else {
      throw NSError(domain: "oracle", code: 1, userInfo: [NSLocalizedDescriptionKey: "libavformat cannot open \(path)"])
    }
    defer {
      var c: UnsafeMutablePointer<AVFormatContext>? = context
      avformat_close_input(&c)
    }
    guard avformat_find_stream_info(context, nil) >= 0 else {
      throw NSError(domain: "oracle", code: 2, userInfo: [NSLocalizedDescriptionKey: "no stream info in \(path)"])
    }
    var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
    defer { av_packet_free(&packet) }
    var result: [Packet] = []
    var end = 0.0
    while av_read_frame(context, packet) >= 0 {
      let p = packet!.pointee
      let base = context.pointee.streams[Int(p.stream_index)]!.pointee.time_base
      let seconds = { (t: Int64) in Double(t) * Double(base.num) / Double(base.den) }
      let pts = p.pts == CAMFX_AV_NOPTS_VALUE ? -1 : seconds(p.pts)
      result.append(
        Packet(
          stream: Int(p.stream_index), position: p.pos, size: p.size, pts: pts, dts: seconds(p.dts),
          keyframe: p.flags & AV_PKT_FLAG_KEY != 0))
      end = max(end, pts + seconds(p.duration))
      av_packet_unref(packet)
    }
    return (result, end)
  }

  struct Outcome {
    var cases = 0
    var keptWhole = 0
    var leftOut = 0
    var failures: [String] = []
  }

  /// Flips `bit` of byte `at`, repairs, and checks the property; returns nil when it
  /// holds, else what broke it.
  func check(
    _ original: [UInt8], flipping at: Int, bit: Int, fragment k: Int, parts: [(moof: Int, moofEnd: Int, end: Int)],
    reference: [Packet], referenceDuration: Double, fragmentSeconds: Double, dir: TemporaryDirectory, outcome: inout Outcome
  ) {
    var bytes = original
    bytes[at] ^= UInt8(1 << bit)
    check(
      bytes, "fragment \(k + 1), bit \(bit) of byte \(at - parts[k].moof) of its moof", fragment: k, parts: parts,
      reference: reference, referenceDuration: referenceDuration, fragmentSeconds: fragmentSeconds, dir: dir,
      outcome: &outcome)
  }

  /// Repairs `bytes`, damaged in fragment `k` alone, and checks the property.
  func check(
    _ bytes: [UInt8], _ what: String, fragment k: Int, parts: [(moof: Int, moofEnd: Int, end: Int)], reference: [Packet],
    referenceDuration: Double, fragmentSeconds: Double, dir: TemporaryDirectory, outcome: inout Outcome
  ) {
    let path = dir.file("case.mp4")
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
    outcome.cases += 1
    let report: FragmentedMovieFinisher.Report
    do {
      report = try FragmentedMovieFinisher.finish(path: path)
    } catch {
      outcome.failures.append("\(what): repair refused: \(error)")
      return
    }
    guard let (repaired, duration) = try? packets(path) else {
      outcome.failures.append("\(what): libavformat cannot read the repaired file")
      return
    }
    let byIdentity = Dictionary(repaired.map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
    let inFragment = { (p: Packet) in parts[k].moof..<parts[k].end ~= Int(p.position) }
    var missing: [Packet] = []
    for p in reference {
      guard let kept = byIdentity[p.identity] else {
        if inFragment(p) {
          missing.append(p)
          continue
        }
        outcome.failures.append("\(what): a packet of an untouched fragment is missing (stream \(p.stream), dts \(p.dts))")
        return
      }
      // Within half a millisecond: an empty edit (a lost first fragment) is in the
      // movie's timescale, which libavformat writes in milliseconds.
      guard abs(kept.dts - p.dts) < 6e-4, abs(kept.pts - p.pts) < 6e-4, kept.keyframe == p.keyframe else {
        outcome.failures.append(
          "\(what): stream \(p.stream) packet at \(p.dts) s kept as dts \(kept.dts) pts \(kept.pts) (was \(p.pts)), key \(kept.keyframe)")
        return
      }
    }
    guard repaired.count == reference.count - missing.count else {
      outcome.failures.append("\(what): \(repaired.count - (reference.count - missing.count)) packets that were not recorded")
      return
    }
    guard duration <= referenceDuration + 1e-3, duration >= referenceDuration - fragmentSeconds - 0.1 else {
      outcome.failures.append("\(what): lasts \(duration) s, the undamaged file \(referenceDuration) s")
      return
    }
    if missing.isEmpty {
      outcome.keptWhole += 1
      if !report.keptEverythingIntact { outcome.failures.append("\(what): nothing was left out, but it reports losses \(report.losses)") }
      return
    }
    outcome.leftOut += 1
    guard !report.keptEverythingIntact, !report.losses.isEmpty else {
      outcome.failures.append("\(what): \(missing.count) packets left out, and the report says everything was kept")
      return
    }
    // Sound packets may run up to a frame or two past the video's span of a fragment.
    let slack = 0.1
    for p in missing {
      let covered = report.losses.contains { loss in
        (loss.from.map { p.dts >= $0 - slack } ?? true) && (loss.to.map { p.dts <= $0 + slack } ?? true)
      }
      if !covered {
        outcome.failures.append("\(what): stream \(p.stream) packet at \(p.dts) s left out, outside every reported loss \(report.losses)")
        return
      }
    }
  }

  func testRepairKeepsEveryUntouchedFragmentOverEveryShape() throws {
    FFmpegLogging.fatalOnly()
    let full = ProcessInfo.processInfo.environment["CAMFX_REPAIR_ORACLE"] == "full"
    var total = Outcome()
    for shape in Self.shapes {
      let dir = try TemporaryDirectory()
      let original = try crashedRecording(shape, in: dir)
      let parts = fragmentBoxes(original)
      XCTAssertGreaterThanOrEqual(parts.count, 4, "\(shape)")
      let referencePath = dir.file("reference.mp4")
      FileManager.default.createFile(atPath: referencePath, contents: Data(original))
      let referenceReport = try FragmentedMovieFinisher.finish(path: referencePath)
      XCTAssertTrue(referenceReport.keptEverythingIntact, "\(shape): the undamaged file")
      XCTAssertEqual(referenceReport.fragments, parts.count, "\(shape)")
      let (reference, referenceDuration) = try packets(referencePath)
      var outcome = Outcome()
      for (k, part) in parts.enumerated() {
        // The moof and its mdat's header.
        for at in part.moof..<(part.moofEnd + 8) {
          if full {
            for bit in 0..<8 {
              check(
                original, flipping: at, bit: bit, fragment: k, parts: parts, reference: reference,
                referenceDuration: referenceDuration, fragmentSeconds: shape.fragment, dir: dir, outcome: &outcome)
            }
          } else if (at - part.moof) % 3 == k % 3 {
            check(
              original, flipping: at, bit: (at / 3) % 8, fragment: k, parts: parts, reference: reference,
              referenceDuration: referenceDuration, fragmentSeconds: shape.fragment, dir: dir, outcome: &outcome)
          }
        }
      }
      print(
        "repair oracle, \(shape): \(parts.count) fragments, \(outcome.cases) flips: \(outcome.keptWhole) repaired with every packet, \(outcome.leftOut) with the damaged fragment's packets left out and reported, \(outcome.failures.count) failures"
      )
      for failure in outcome.failures.prefix(20) { XCTFail("\(shape): \(failure)") }
      total.cases += outcome.cases
      total.keptWhole += outcome.keptWhole
      total.leftOut += outcome.leftOut
      total.failures += outcome.failures
    }
    print(
      "repair oracle: \(Self.shapes.count) shapes, \(total.cases) flips, \(total.keptWhole) kept every packet, \(total.leftOut) left packets of the damaged fragment out, \(total.failures.count) failures"
    )
  }

  /// Fields set to what no recording writes (decode times near 2^63 on a 44.1 kHz
  /// track, a sample count of 2^32 - 1, a data offset past any file): repair neither
  /// crashes nor hangs, and the property holds.
  func testHostileFieldsNeitherCrashNorHang() throws {
    FFmpegLogging.fatalOnly()
    let dir = try TemporaryDirectory()
    let shape = Shape(fragment: 1, bframes: 0, audio: "aac", frames: 130)
    let original = try crashedRecording(shape, in: dir, sampleRate: 44_100)
    let parts = fragmentBoxes(original)
    XCTAssertGreaterThanOrEqual(parts.count, 3)
    let referencePath = dir.file("reference.mp4")
    FileManager.default.createFile(atPath: referencePath, contents: Data(original))
    _ = try FragmentedMovieFinisher.finish(path: referencePath)
    let (reference, referenceDuration) = try packets(referencePath)
    /// The offset in the file of `type`'s box in fragment `k`'s `index`th `traf`.
    func box(_ type: String, fragment k: Int, traf index: Int) throws -> Int {
      var trafs: [Int] = []
      var at = parts[k].moof + 8
      while at < parts[k].moofEnd {
        let size = original[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        if String(decoding: original[at + 4..<at + 8], as: UTF8.self) == "traf" { trafs.append(at) }
        at += max(size, 8)
      }
      var child = trafs[index] + 8
      while String(decoding: original[child + 4..<child + 8], as: UTF8.self) != type {
        child += original[child..<child + 4].reduce(0) { $0 << 8 | Int($1) }
      }
      return child
    }
    func set(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64, width: Int) {
      for i in 0..<width { bytes[at + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - i))) }
    }
    var edits: [(String, [UInt8])] = []
    for value: UInt64 in [.max, 1 << 63, (1 << 63) - 1] {
      var bytes = original
      set(&bytes, try box("tfdt", fragment: 1, traf: 1) + 12, value, width: 8)
      edits.append(("the sound's tfdt set to \(value)", bytes))
    }
    var count = original
    set(&count, try box("trun", fragment: 1, traf: 0) + 12, 0xFFFF_FFFF, width: 4)
    edits.append(("the video trun's sample count set to 2^32 - 1", count))
    var offset = original
    set(&offset, try box("trun", fragment: 1, traf: 0) + 16, 0x7FFF_FFFF, width: 4)
    edits.append(("the video trun's data offset set to 2^31 - 1", offset))
    var outcome = Outcome()
    for (what, bytes) in edits {
      let started = Date()
      check(
        bytes, what, fragment: 1, parts: parts, reference: reference, referenceDuration: referenceDuration,
        fragmentSeconds: shape.fragment, dir: dir, outcome: &outcome)
      XCTAssertLessThan(Date().timeIntervalSince(started), 30, what)
    }
    for failure in outcome.failures { XCTFail(failure) }
    XCTAssertEqual(outcome.cases, edits.count)
  }
}

/// The top-level `moof` and `mdat` of each fragment of a camfx fragmented MP4: `moof`
/// start, `moof` end, `mdat` end.
func fragmentBoxes(_ bytes: [UInt8]) -> [(moof: Int, moofEnd: Int, end: Int)] {
  var result: [(Int, Int, Int)] = []
  var offset = 0
  var moof: (Int, Int)? = nil
  while offset + 8 <= bytes.count {
    let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
    guard size >= 8, offset + size <= bytes.count else { break }
    if type == "moof" { moof = (offset, offset + size) }
    if type == "mdat", let m = moof { result.append((m.0, m.1, offset + size)) }
    offset += size
  }
  return result
}
