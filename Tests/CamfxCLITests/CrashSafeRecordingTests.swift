import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Recordings that lose nothing: killed, repaired, cut into segments, on a small disk.
/// Every movie is decoded with ffprobe/ffmpeg.
final class CrashSafeRecordingTests: CLITestCase {
  private let fast = ["--x264-preset", "ultrafast"]

  /// Starts `camfx args` in the test directory and returns the process and when
  /// `file` first had bytes (the header: the first frame is encoded).
  private func start(_ args: [String], waitingFor file: String) throws -> (Process, Date) {
    let process = Process()
    process.executableURL = try CLI.executable
    process.arguments = CLI.withTestSource(args)
    process.currentDirectoryURL = dir
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline && process.isRunning {
      let size = (try? FileManager.default.attributesOfItem(atPath: path(file))[.size] as? Int) ?? 0
      if size > 0 { break }
      usleep(2_000)
    }
    XCTAssertTrue(process.isRunning, "\(args) ended early")
    return (process, Date())
  }

  /// ffmpeg's complaints while decoding the whole file (empty when clean).
  private func decodeErrors(_ file: String) throws -> String {
    let result = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path(file), "-f", "null", "-"])
    return result.stderr
  }

  private func videoChecksums(_ file: String) throws -> [String] {
    let text = String(decoding: try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path(file), "-map", "0:v", "-f", "framemd5", "-"]).stdout, as: UTF8.self)
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
  }

  private func topLevelBoxes(_ file: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path(file)))
    var boxes: [String] = []
    var offset = 0
    while offset + 8 <= data.count {
      var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
      if size == 1 { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
      guard size >= 8 else { break }
      offset += size
    }
    return boxes
  }

  /// kill -9 at 20 random moments 1.5-6 s into a live recording with default settings:
  /// every file plays to its end, under its own name, and holds video and audio up to
  /// its last fragment before the kill; `camfx repair` then makes a regular MP4 of the
  /// same frames. What the file may lack is one fragment (1 s) plus the encoder's delay
  /// (x264's default lookahead and B-frames; the pipeline adds about 0.02 s:
  /// benchmarks/fragment-latency.sh), plus time for a busy 2-core machine to schedule it
  /// (make test runs four test processes on the two cores; a second lost fragment would
  /// still be a second more).
  private let fragment = 1.0, encoderDelay = 0.45, scheduling = 0.6

  func testKillNineAnywhereLeavesAPlayableFileThatRepairFinishes() throws {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<20 {
      let name = "kill-\(round).mp4"
      let delay = Double.random(in: 1.5...6, using: &generator)
      let (process, started) = try start(["record", "--size", "640x360", "--audio", "sine", "-o", name], waitingFor: name)
      let elapsedBeforeKill = max(0, delay - Date().timeIntervalSince(started))
      usleep(UInt32(elapsedBeforeKill * 1e6))
      let recorded = Date().timeIntervalSince(started)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let context = "round \(round), killed \(String(format: "%.2f", recorded)) s in"
      XCTAssertEqual(try listing().filter { $0.hasPrefix("kill-\(round)") || $0.hasPrefix(".camfx") }, [name], context)
      XCTAssertEqual(try decodeErrors(name), "", context)
      let streams = try MovieOracle.probe(path(name))
      let video = try XCTUnwrap(streams["video"], context)
      let audio = try XCTUnwrap(streams["audio"], context)
      let videoEnd = (video.frameTimes.max() ?? 0) + 1.0 / 30
      let audioEnd = audio.frameTimes.max() ?? 0
      let lost = fragment + encoderDelay + scheduling
      XCTAssertGreaterThanOrEqual(videoEnd, recorded - lost, context)
      XCTAssertGreaterThanOrEqual(audioEnd, recorded - lost, context)
      let before = try videoChecksums(name)

      let repair = try CLI.run(["repair", name], in: dir)
      if video.frames == 0 {
        // Killed before its first fragment was complete: nothing to keep, and said so.
        XCTAssertEqual(repair.status, 1, "\(context): \(repair)")
        XCTAssertTrue(repair.stderr.contains("it holds no complete fragment"), repair.stderr)
        try FileManager.default.removeItem(atPath: path(name))
        continue
      }
      XCTAssertEqual(repair.status, 0, "\(context): \(repair)")
      XCTAssertTrue(repair.stdout.hasPrefix("\(name): kept 00:00:0"), repair.stdout)
      XCTAssertTrue(repair.stdout.contains(" of video and audio in "), repair.stdout)
      XCTAssertFalse(try topLevelBoxes(name).contains("moof"), context)
      XCTAssertEqual(try videoChecksums(name), before, context)
      try FileManager.default.removeItem(atPath: path(name))
    }
  }

  /// Matroska is crash-tolerant by nature; written in synced clusters of 1 s, a file
  /// killed mid-recording plays up to its last cluster.
  func testKilledMatroskaRecordingPlays() throws {
    for round in 0..<3 {
      let name = "kill-\(round).mkv"
      let (process, started) = try start(["record", "--size", "640x360", "--audio", "sine", "-o", name], waitingFor: name)
      usleep(UInt32(2_500_000 + round * 1_000_000))
      let recorded = Date().timeIntervalSince(started)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      XCTAssertEqual(try decodeErrors(name), "", name)
      let video = try XCTUnwrap(MovieOracle.probe(path(name))["video"], name)
      XCTAssertGreaterThanOrEqual((video.frameTimes.max() ?? 0) + 1.0 / 30, recorded - (fragment + encoderDelay + scheduling), name)
    }
  }

  func testRepairSaysWhatItRefusesAndWhatIsDone() throws {
    XCTAssertTrue(FileManager.default.createFile(atPath: path("notes.mp4"), contents: Data("hello".utf8)))
    try assertFails(
      ["repair", "notes.mp4"], stderr: "camfx: error: cannot repair 'notes.mp4': not a fragmented MP4 written by camfx",
      keep: ["notes.mp4"])
    try assertFails(
      ["repair", "missing.mp4"], stderr: "camfx: error: cannot repair 'missing.mp4': cannot open 'missing.mp4': No such file or directory",
      keep: ["notes.mp4"])
    let made = try CLI.run(["record", "--size", "64x48", "--frames", "10", "--no-realtime", "-o", "done.mp4"] + fast, in: dir)
    XCTAssertEqual(made.status, 0, "\(made)")
    let again = try CLI.run(["repair", "done.mp4"], in: dir)
    XCTAssertEqual(again.status, 0)
    XCTAssertEqual(again.stdout, "done.mp4 is already a finished MP4; nothing to do\n")

    // A recording killed after about 4 s: cut before its first fragment, it has nothing
    // to keep; with one fragment's header hit, the fragments after it are kept.
    let (process, _) = try start(["record", "--size", "320x240", "--audio", "sine", "-o", "live.mp4"] + fast, waitingFor: "live.mp4")
    usleep(4_500_000)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let crashed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("live.mp4"))))
    let moofs = (4..<(crashed.count - 4)).filter { crashed[$0..<$0 + 4].elementsEqual("moof".utf8) }.map { $0 - 4 }
    XCTAssertGreaterThanOrEqual(moofs.count, 3)
    FileManager.default.createFile(atPath: path("head.mp4"), contents: Data(crashed.prefix(moofs[0] + 100)))
    try assertFails(
      ["repair", "head.mp4"],
      stderr: "camfx: error: cannot repair 'head.mp4': it holds no complete fragment (it was cut within its first second, "
        + "or every fragment is damaged): nothing to keep; left unchanged",
      keep: ["done.mp4", "head.mp4", "live.mp4", "notes.mp4"])
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("head.mp4"))), Data(crashed.prefix(moofs[0] + 100)))
    FileManager.default.createFile(atPath: path("whole.mp4"), contents: Data(crashed))
    XCTAssertEqual(try CLI.run(["repair", "whole.mp4"], in: dir).status, 0)
    let whole = try XCTUnwrap(MovieOracle.probe(path("whole.mp4"))["video"]).frames
    // Video packets of the whole file: where they lie, and when they are shown.
    let packets = String(decoding: try MovieOracle.run("ffprobe", [
      "-v", "error", "-select_streams", "v", "-show_entries", "packet=pos,pts_time", "-of", "csv=p=0", path("whole.mp4"),
    ]).stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
      .filter { $0.count == 2 }.map { (pts: $0[0], pos: Int($0[1])) }

    // A fragment's size and its decode time hit: both are said twice in the file (by
    // its boxes, by the fragments around it), repaired, and nothing is lost.
    var hit = crashed
    hit[moofs[1] + 2] ^= 0x40  // the second fragment's size
    hit[moofs[2] + 60 + 12 + 1] ^= 0x40  // the third fragment's video tfdt, its high bits
    FileManager.default.createFile(atPath: path("hit.mp4"), contents: Data(hit))
    let repaired = try CLI.run(["repair", "hit.mp4"], in: dir)
    XCTAssertEqual(repaired.status, 0, "\(repaired)")
    XCTAssertTrue(repaired.stdout.contains("repaired: fragment 3: track 1's decode time said "), repaired.stdout)
    XCTAssertEqual(try decodeErrors("hit.mp4"), "")
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("hit.mp4"))["video"]).frames, whole)
    XCTAssertEqual(
      try XCTUnwrap(MovieOracle.probe(path("hit.mp4"))["video"]).frameTimes.max(),
      try XCTUnwrap(MovieOracle.probe(path("whole.mp4"))["video"]).frameTimes.max())

    // A whole `moof` wiped: that fragment is left out, the ones after it are kept, and
    // the loss is said with the seconds it held in the file's own timeline.
    var wiped = crashed
    for i in moofs[1]..<(moofs[1] + 300) { wiped[i] = 0 }
    FileManager.default.createFile(atPath: path("wiped.mp4"), contents: Data(wiped))
    let partial = try CLI.run(["repair", "wiped.mp4"], in: dir)
    XCTAssertEqual(partial.status, 1, "\(partial)")
    func clock(_ seconds: Double) -> String {
      let tenths = Int((seconds * 10 + 1e-6).rounded(.down))
      return String(format: "%02d:%02d:%02d.%d", tenths / 36000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10)
    }
    let from = try XCTUnwrap(packets.filter { $0.pos >= moofs[1] && $0.pos < moofs[2] }.map(\.pts).min())
    let to = try XCTUnwrap(packets.filter { $0.pos >= moofs[2] }.map(\.pts).min())
    XCTAssertEqual(
      partial.stderr,
      "camfx: error: 'wiped.mp4' was damaged; left out of the finished file: bytes \(moofs[1])-\(moofs[2]) "
        + "(no frames from \(clock(from)) to \(clock(to)))\n")
    let kept = try XCTUnwrap(MovieOracle.probe(path("wiped.mp4"))["video"])
    XCTAssertEqual(kept.frames, whole - packets.filter { $0.pos >= moofs[1] && $0.pos < moofs[2] }.count)
    XCTAssertEqual(kept.frameTimes.max(), try XCTUnwrap(MovieOracle.probe(path("whole.mp4"))["video"]).frameTimes.max())
  }

  /// 7 s at `--segment 2s`: 4 files that each play alone from a keyframe at time 0,
  /// whose durations add up to 7 s, with sound that neither skips nor repeats at the cuts.
  func testSegmentsPlayAloneAndJoinWithoutGapsOrOverlaps() throws {
    let result = try CLI.run(
      ["record", "--size", "160x120", "--duration", "7s", "--audio", "sine", "--segment", "2s", "--no-realtime",
       "--stats-json", "stats.json", "-o", "rec.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(try listing(), ["rec-000.mp4", "rec-001.mp4", "rec-002.mp4", "rec-003.mp4", "stats.json"])
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
    XCTAssertEqual(segments.compactMap { $0["name"] as? String }, ["rec-000.mp4", "rec-001.mp4", "rec-002.mp4", "rec-003.mp4"])
    var totalVideo = 0.0
    var previousAudioEnd: Double?
    for (i, segment) in segments.enumerated() {
      let name = try XCTUnwrap(segment["name"] as? String)
      let start = try XCTUnwrap(segment["start"] as? Double)
      XCTAssertEqual(start, Double(i) * 2, accuracy: 1e-6)
      XCTAssertEqual(try decodeErrors(name), "", name)
      let firstType = try MovieOracle.run("ffprobe", [
        "-v", "error", "-select_streams", "v", "-read_intervals", "%+#1", "-show_entries", "frame=pict_type,key_frame",
        "-of", "csv=p=0", path(name),
      ]).stdout
      // key_frame,pict_type (and empty side data) of the first frame.
      XCTAssertTrue(String(decoding: firstType, as: UTF8.self).hasPrefix("1,I"), name)
      let streams = try MovieOracle.probe(path(name))
      let video = try XCTUnwrap(streams["video"])
      XCTAssertEqual(video.frameTimes.first ?? -1, 0, accuracy: 1e-6, name)
      totalVideo += Double(video.frames) / 30
      XCTAssertEqual(segment["bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: path(name))[.size] as? Int)
      // Audio packets: where this segment's sound starts and ends on the recording's clock.
      let packets = String(decoding: try MovieOracle.run("ffprobe", [
        "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path(name),
      ]).stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
      let first = try XCTUnwrap(packets.first?.first)
      let last = try XCTUnwrap(packets.last)
      // Sound from before the cut belongs to the segment before (the first has AAC's
      // priming packet before zero).
      if i > 0 { XCTAssertGreaterThanOrEqual(first, 0, "sound from before the cut in \(name)") }
      if let previousAudioEnd {
        XCTAssertEqual(start + max(0, first), previousAudioEnd, accuracy: 1024.0 / 48_000 + 1e-6, "sound at the cut before \(name)")
      }
      previousAudioEnd = start + last[0] + last[1]
    }
    XCTAssertEqual(totalVideo, 7, accuracy: 1.0 / 30 + 1e-9)
  }

  func testKeepLeavesOnlyTheNewestSegments() throws {
    XCTAssertTrue(FileManager.default.createFile(atPath: path("mine.mp4"), contents: Data("not camfx's".utf8)))
    let result = try CLI.run(
      ["record", "--size", "160x120", "--duration", "7s", "--segment", "2s", "--keep", "2", "--no-realtime",
       "--stats-json", "s.json", "-o", "loop.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(try listing(), ["loop-002.mp4", "loop-003.mp4", "mine.mp4", "s.json"])
    for name in ["loop-002.mp4", "loop-003.mp4"] { XCTAssertEqual(try decodeErrors(name), "", name) }
    // What was written (all four segments) and what is kept (the newest two), each with its rate.
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("s.json"))) as? [String: Any])
    let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
    XCTAssertEqual(segments.count, 4)
    XCTAssertEqual(json["bytes"] as? Int, segments.compactMap { $0["bytes"] as? Int }.reduce(0, +))
    let kept = try ["loop-002.mp4", "loop-003.mp4"].map {
      try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path($0))[.size] as? Int)
    }.reduce(0, +)
    let keptText = kept >= 1000 ? String(format: "%.1f kB", Double(kept) / 1000) : "\(kept) B"
    XCTAssertTrue(result.stderr.contains("; kept the newest 2 of 4 segments: \(keptText), 3.00 s, "), result.stderr)
  }

  func testMaxTotalKeepsTheNewestSegmentsThatFit() throws {
    let result = try CLI.run(
      ["record", "--size", "160x120", "--duration", "8s", "--segment", "1s", "--max-total", "40k", "--no-realtime",
       "--stats-json", "stats.json", "-o", "loop.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
    XCTAssertEqual(segments.count, 8)
    let kept = segments.filter { ($0["kept"] as? Bool) == true }
    XCTAssertGreaterThan(kept.count, 0)
    XCTAssertLessThan(kept.count, 8, "the oldest were deleted")
    // The kept ones are the newest, and all but the one still being written fit in 40 kB.
    XCTAssertEqual(kept.compactMap { $0["name"] as? String }, segments.suffix(kept.count).compactMap { $0["name"] as? String })
    XCTAssertLessThanOrEqual(kept.dropLast().reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) }, 40_000)
    XCTAssertEqual(try listing().filter { $0.hasPrefix("loop-") }, kept.compactMap { $0["name"] as? String })
  }

  /// A strftime pattern that makes a '/' or a name too long is refused before recording.
  func testBadNamePatternsAreRefusedBeforeRecording() throws {
    let year = Calendar.current.component(.year, from: Date())
    let slash = try CLI.run(["record", "--duration", "2s", "--segment", "1s", "-o", "x-%D.mp4"], in: dir)
    XCTAssertEqual(slash.status, 1, "\(slash)")
    XCTAssertTrue(
      slash.stderr.hasPrefix("camfx: error: -o 'x-%D.mp4' makes names with a '/' in them ('x-"), slash.stderr)
    let long = String(repeating: "a", count: 250) + "-%Y.mp4"
    try assertFails(
      ["record", "--duration", "2s", "--segment", "1s", "-o", long],
      stderr: "camfx: error: -o '\(long)' makes file names of 259 bytes ('\(String(repeating: "a", count: 250))-\(year).mp4'); the file system allows 255")
    try assertFails(
      ["record", "--duration", "2s", "--still", "s-%D.png", "-o", "a.mp4"],
      prefix: "camfx: error: --still 's-%D.png' makes names with a '/' in them")
    XCTAssertEqual(try listing(), [])
  }

  /// One rule for every name pattern: a single -o file and a snapshot take their
  /// fields' values as --segment, --event-output and --still do, and an unknown field
  /// is an error naming its option, whichever it is, before anything is recorded.
  func testEveryNamePatternFollowsOneRule() throws {
    let day = DateFormatter()
    day.dateFormat = "yyyyMMdd"
    let today = day.string(from: Date())
    let recorded = try CLI.run(["record", "--size", "160x120", "--frames", "3", "-o", "cam-%Y%m%d.mp4"] + fast, in: dir)
    XCTAssertEqual(recorded.status, 0, "\(recorded)")
    XCTAssertEqual(try listing(), ["cam-\(today).mp4"])
    XCTAssertEqual(try MovieOracle.probe(path("cam-\(today).mp4"))["video"]?.frames, 3)
    let shot = try CLI.run(["snapshot", "--size", "32x24", "-o", "shot-%Y%m%d-100%%.png"], in: dir)
    XCTAssertEqual(shot.status, 0, "\(shot)")
    XCTAssertEqual(try listing(), ["cam-\(today).mp4", "shot-\(today)-100%.png"])
    XCTAssertEqual(try MovieOracle.lumaFrames(path("shot-\(today)-100%.png"), width: 32, height: 24).count, 1)

    let unknown = "unknown field '%Q' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)"
    let keep = ["cam-\(today).mp4", "shot-\(today)-100%.png"]
    try assertFails(["record", "--frames", "3", "-o", "cam-%Q.mp4"], stderr: "camfx: error: -o 'cam-%Q.mp4': \(unknown)", keep: keep)
    try assertFails(
      ["record", "--frames", "3", "--segment", "1s", "-o", "cam-%Q.mp4"], stderr: "camfx: error: -o 'cam-%Q.mp4': \(unknown)", keep: keep)
    try assertFails(
      ["record", "--frames", "3", "--pre-record", "1s", "--event-output", "ev-%Q.mp4", "-o", "a.mp4"],
      stderr: "camfx: error: --event-output 'ev-%Q.mp4': \(unknown)", keep: keep)
    try assertFails(
      ["record", "--frames", "3", "--still", "s-%Q.png", "-o", "a.mp4"], stderr: "camfx: error: --still 's-%Q.png': \(unknown)", keep: keep)
    try assertFails(["snapshot", "-o", "s-%Q.png"], stderr: "camfx: error: -o 's-%Q.png': \(unknown)", keep: keep)
    try assertFails(
      ["record", "--frames", "3", "-o", "50%.mp4"], stderr: "camfx: error: -o '50%.mp4': unknown field '%.' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)",
      keep: keep)
  }

  func testStrftimeSegmentNamesGetACounterWhenTheyCollide() throws {
    let result = try CLI.run(
      ["record", "--size", "160x120", "--duration", "2s", "--segment", "1s", "--no-realtime", "-o", "cam-%Y.mp4"] + fast,
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let year = Calendar.current.component(.year, from: Date())
    XCTAssertEqual(try listing(), ["cam-\(year)-1.mp4", "cam-\(year).mp4"])
  }

  /// `--min-free` on a small tmpfs: a loop recording deletes its oldest segments and
  /// goes on; a single file finishes cleanly, naming the limit.
  func testMinFreeDeletesTheOldestSegmentOrFinishes() throws {
    let disk = path("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    guard mount("tmpfs", disk, "tmpfs", 0, "size=1M") == 0 else { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
    defer { _ = umount2(disk, Int32(MNT_DETACH)) }
    let loop = try CLI.run(
      ["record", "--size", "320x240", "--frames", "300", "--crf", "0", "--segment", "1s", "--min-free", "900k",
       "--no-realtime", "--stats-json", "stats.json", "-o", "disk/seg.mp4"] + fast, in: dir)
    XCTAssertEqual(loop.status, 0, "\(loop)")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    XCTAssertEqual(json["frames_out"] as? Int, 300)
    let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
    let deleted = segments.filter { ($0["kept"] as? Bool) == false }.compactMap { $0["name"] as? String }
    XCTAssertFalse(deleted.isEmpty, "\(segments)")
    XCTAssertEqual(deleted.first, "disk/seg-000.mp4")
    for name in deleted { XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)), name) }
    let kept = segments.filter { ($0["kept"] as? Bool) == true }.compactMap { $0["name"] as? String }
    XCTAssertEqual(try listing("disk"), kept.map { String($0.dropFirst(5)) }.sorted())
    for name in kept { XCTAssertEqual(try decodeErrors(name), "", name) }
    for name in try listing("disk") { try FileManager.default.removeItem(atPath: path("disk/" + name)) }

    let single = try CLI.run(
      ["record", "--size", "320x240", "--frames", "300", "--crf", "0", "--min-free", "900k", "--no-realtime",
       "--stats-json", "stats.json", "-y", "-o", "disk/one.mp4"] + fast, in: dir)
    XCTAssertEqual(single.status, 0, "\(single)")
    XCTAssertTrue(single.stderr.hasPrefix("camfx: free space on 'disk' fell below --min-free 900.0 kB; finishing the recording\n"), single.stderr)
    let stats = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    XCTAssertEqual(stats["stop_reason"] as? String, "min-free")
    XCTAssertLessThan(try XCTUnwrap(stats["frames_out"] as? Int), 300)
    XCTAssertEqual(try decodeErrors("disk/one.mp4"), "")
  }

  /// Segment boundaries are exact whatever the encoder holds back: every x264 preset
  /// (medium's lookahead is 40 frames), a GOP shorter than the segment, and the other codecs.
  func testSegmentsAreExactAtEveryPresetAndCodec() throws {
    let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    let cases = presets.map { ["--x264-preset", $0] } + [["--x264-preset", "medium", "--gop", "30"], ["--video-codec", "hevc"],
      ["--video-codec", "vp9"], ["--video-codec", "av1"]]
    for (n, extra) in cases.enumerated() {
      let result = try CLI.run(
        ["record", "--size", "160x120", "--duration", "3s", "--no-realtime", "--segment", "1s", "-o", "s\(n).mkv"] + extra,
        in: dir)
      XCTAssertEqual(result.status, 0, "\(extra): \(result)")
      for i in 0..<3 {
        let name = "s\(n)-00\(i).mkv"
        let frames = try MovieOracle.run("ffprobe", [
          "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame", "-of", "csv=p=0", path(name),
        ]).stdout
        let keys = String(decoding: frames, as: UTF8.self).split(separator: "\n").map { $0.hasPrefix("1") }
        XCTAssertEqual(keys.count, 30, "\(extra): \(name) holds \(keys.count) frames, not 1 s")
        XCTAssertEqual(keys.first, true, "\(extra): \(name) starts on a keyframe")
      }
    }
  }

  /// A full disk: the summary and --stats-json say what the file holds (frames,
  /// seconds, bytes), not what was handed to the muxer; the same for segments.
  func testFiguresOnAFullDiskAreWhatTheFilesHold() throws {
    let disk = path("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    guard mount("tmpfs", disk, "tmpfs", 0, "size=250k") == 0 else { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
    defer { _ = umount2(disk, Int32(MNT_DETACH)) }
    for (name, extra) in [("disk/full.mp4", [String]()), ("disk/seg.mp4", ["--segment", "2s"])] {
      for file in try listing("disk") { try FileManager.default.removeItem(atPath: path("disk/" + file)) }
      let result = try CLI.run(
        ["record", "--size", "320x240", "--frames", "900", "--crf", "10", "--no-realtime", "--stats-json", "stats.json",
         "-y", "-o", name] + extra + fast, in: dir)
      XCTAssertEqual(result.status, 1, "\(result)")
      let json = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
      var frames = 0, seconds = 0.0, bytes = 0
      for file in try listing("disk") {
        let video = try XCTUnwrap(MovieOracle.probe(path("disk/" + file))["video"], file)
        frames += video.frames
        seconds += video.duration
        bytes += try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path("disk/" + file))[.size] as? Int)
      }
      XCTAssertGreaterThan(frames, 30, name)
      XCTAssertEqual(json["frames_out"] as? Int, frames, "\(name): \(result.stderr)")
      XCTAssertEqual(json["duration_seconds"] as? Double ?? 0, seconds, accuracy: 0.001, name)
      XCTAssertEqual(json["bytes"] as? Int, bytes, name)
      XCTAssertTrue(result.stderr.contains("recorded \(frames) frames"), result.stderr)
    }
  }

  func testWithoutOutputTheRecordingGetsADatedName() throws {
    let result = try CLI.run(["record", "--size", "64x48", "--frames", "5", "--no-realtime"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let files = try listing()
    XCTAssertEqual(files.count, 1)
    let name = try XCTUnwrap(files.first)
    XCTAssertNotNil(name.range(of: #"^camfx-\d{8}-\d{6}\.mp4$"#, options: .regularExpression), name)
    XCTAssertTrue(result.stderr.hasPrefix("camfx: recording to \(name) (no -o given); Ctrl-C stops\n"), result.stderr)
    XCTAssertEqual(try MovieOracle.probe(path(name))["video"]?.frames, 5)
  }

  func testAnOutputThatIsTheInputOrAFIFOIsRefused() throws {
    let made = try CLI.run(["record", "--size", "64x48", "--frames", "5", "--no-realtime", "-o", "in.mp4"] + fast, in: dir)
    XCTAssertEqual(made.status, 0, "\(made)")
    let before = try Data(contentsOf: URL(fileURLWithPath: path("in.mp4")))
    try assertFails(
      ["record", "--input", "in.mp4", "-y", "-o", "./in.mp4"],
      stderr: "camfx: error: output './in.mp4' is the same file as --input; choose another output name", keep: ["in.mp4"])
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("in.mp4"))), before)
    XCTAssertEqual(mkfifo(path("pipe.mp4"), 0o644), 0)
    try assertFails(
      ["record", "--frames", "5", "-y", "-o", "pipe.mp4"],
      stderr: "camfx: error: output 'pipe.mp4' exists and is not a regular file (a FIFO or device is never replaced)",
      keep: ["in.mp4", "pipe.mp4"])
  }

  /// A second Ctrl-C stops at once, without draining the encoder, and the file plays.
  func testSecondInterruptStopsAtOnceWithAPlayableFile() throws {
    let (process, _) = try start(
      ["record", "--size", "1280x720", "--audio", "sine", "--x264-preset", "veryslow", "-o", "twice.mp4"],
      waitingFor: "twice.mp4")
    // Interrupted once its first fragment is in the file: veryslow holds 60 frames in its
    // lookahead before it gives one, which a busy machine took more than 2 s to reach
    // (an empty file then).
    guard
      waitUntil("a fragment in twice.mp4", seconds: 60, interval: 0.05, while: process, {
        (try? topLevelBoxes("twice.mp4"))?.contains("moof") ?? false
      })
    else { return }
    // The second comes past the 200 ms in which a second signal from the same sender
    // counts as the first (veryslow's 60-frame lookahead at 720p takes longer than that
    // to drain).
    let stopping = secondsToStopAfterASecondInterrupt(process, between: 0.4, ending: "still draining the encoder")
    // At once: the frame being encoded and the file's finish, not the drain; bounded
    // loosely, as the other test process shares the two cores.
    XCTAssertLessThan(stopping, 3.0)
    XCTAssertEqual(process.terminationReason, .exit)
    XCTAssertEqual(process.terminationStatus, 1)
    XCTAssertEqual(try decodeErrors("twice.mp4"), "")
    XCTAssertFalse(try topLevelBoxes("twice.mp4").contains("moof"))
    // At least its first fragment, a second of video (the drain is cut, as asked).
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(MovieOracle.probe(path("twice.mp4"))["video"]).duration, 0.9)
  }

  private func makeClip(_ name: String, seconds: Int, faststart: Bool = false) throws {
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=\(seconds)", "-f", "lavfi", "-i",
      "sine=duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "16", "-c:a", "aac",
    ] + (faststart ? ["-movflags", "+faststart"] : []) + [path(name)])
  }

  /// `--max-size` on a transcode (frames in flight, x264's lookahead) holds within a
  /// packet, and the figures say what the file holds.
  func testMaxSizeHoldsOnATranscode() throws {
    try makeClip("in.mp4", seconds: 5)
    let result = try CLI.run(
      ["record", "--input", "in.mp4", "--max-size", "300k", "--stats-json", "stats.json", "-o", "out.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path("out.mp4"))[.size] as? Int)
    XCTAssertGreaterThanOrEqual(size, 300_000)
    // Over by one packet at most (a keyframe is the largest; which packet crosses the
    // limit depends on how audio and video interleaved), plus the index.
    let packetSizes = String(decoding: try MovieOracle.run("ffprobe", [
      "-v", "error", "-show_entries", "packet=size", "-of", "csv=p=0", path("out.mp4"),
    ]).stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    let largest = try XCTUnwrap(packetSizes.max())
    XCTAssertLessThan(size, 300_000 + largest + 16_000, "one packet over at most")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    XCTAssertEqual(json["stop_reason"] as? String, "max-size")
    XCTAssertEqual(try MovieOracle.probe(path("out.mp4"))["video"]?.frames, json["frames_out"] as? Int)
    XCTAssertEqual(try decodeErrors("out.mp4"), "")
  }

  /// A movie cut mid-way (a faststart file whose media ends early) fails, and says
  /// what it kept: a file that plays.
  func testAnInputThatBreaksMidwayKeepsWhatWasRead() throws {
    try makeClip("whole.mp4", seconds: 5, faststart: true)
    let whole = try Data(contentsOf: URL(fileURLWithPath: path("whole.mp4")))
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path("cut.mp4")))
    let result = try CLI.run(["record", "--input", "cut.mp4", "--audio", "none", "-o", "out.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 1, "\(result)")
    let last = try XCTUnwrap(result.stderr.split(separator: "\n").last.map(String.init))
    let frames = try XCTUnwrap(MovieOracle.probe(path("out.mp4"))["video"]?.frames)
    XCTAssertGreaterThan(frames, 10)
    XCTAssertNotNil(
      last.range(of: #"^camfx: error: input failed after \d+\.\d\d s: .*cut\.mp4.*; kept \#(frames) frames in out\.mp4$"#,
        options: .regularExpression), last)
    XCTAssertEqual(try decodeErrors("out.mp4"), "")
  }
}
