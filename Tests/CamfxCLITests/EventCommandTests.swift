import Foundation
import XCTest

/// `camfx record --pre-record`: event clips triggered over HTTP (`POST /event` on the
/// preview server) and by SIGUSR2, as a user runs them.
final class EventCommandTests: CLITestCase {
  private func sidecar(_ name: String) throws -> [String: Any] {
    try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(name)))) as? [String: Any])
  }

  /// Writes `name`.json as `camfx record` writes an event's sidecar, for the clip
  /// `name`.mp4 triggered `ago` seconds ago; `files` as the sidecar lists them
  /// (default: the clip's own three).
  private func writeSidecar(
    _ name: String, ago: Double, frames: Int = 30, inProgress: Bool? = nil, files: [String]? = nil
  ) throws {
    var event: [String: Any] = [
      "path": name + ".mp4", "start": 0.0, "end": 1.0, "triggered_at": 0.0,
      "triggered_at_epoch": Date().timeIntervalSince1970 - ago, "trigger": "signal", "triggers": 1, "frames": frames,
      "bytes": 1000, "files": files ?? [name + ".mp4", name + ".png", name + ".json"],
    ]
    if let inProgress { event["in_progress"] = inProgress }
    try JSONSerialization.data(withJSONObject: event).write(to: URL(fileURLWithPath: path(name + ".json")))
  }

  /// Bad values of `camfx events` name their option, negative numbers included, and
  /// are refused before anything is deleted.
  func testEventsOptionsAreCheckedBeforeAnythingIsDeleted() throws {
    try Data("movie".utf8).write(to: URL(fileURLWithPath: path("ev.mp4")))
    try writeSidecar("ev", ago: 60)
    let cases: [([String], String)] = [
      (["--min-score", "-5"], "--min-score '-5' must be a percentage from 0 to 100"),
      (["--since", "-5m"],
       "invalid --since '-5m': a time ago has no sign (5m means that long ago), or give a local time such as 2026-11-26 10:00"),
      (["--until", "-1h"],
       "invalid --until '-1h': a time ago has no sign (1h means that long ago), or give a local time such as 2026-11-26 10:00"),
      (["--max-total", "0"], "--max-total: invalid size '0': expected a byte count such as 50M, 1.5G, 800k or 64MiB"),
      (["--min-free", "-1G"], "--min-free: invalid size '-1G': expected a byte count such as 50M, 1.5G, 800k or 64MiB"),
    ]
    for (args, message) in cases {
      try assertFails(["events", ".", "--keep", "0"] + args, stderr: "camfx: error: " + message, keep: ["ev.json", "ev.mp4"])
    }
  }

  func testHTTPAndSignalTriggersMakeClipsThatStartBeforeThem() throws {
    let port = try LocalServer.freePort()
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "320x240", "--duration", "11s", "--pre-record", "2s",
        "--post-record", "1s", "--event-output", "ev-%H%M%S.mp4", "--preview", "127.0.0.1:\(port)", "--quiet",
        "--on-event-end", "sh -c 'env | grep ^CAMFX_EVENT | sort > hook-$CAMFX_EVENT_TRIGGER.txt'",
        "--on-event-start", "false", "-o", "all.mp4",
      ], in: dir)
    var waited = 0.0
    while !LocalServer.isListening(tcp: port) && waited < 20 {
      usleep(100_000)
      waited += 0.1
    }
    usleep(3_000_000)
    // A page of another origin cannot fire an event; this server's own can.
    let foreign = try HTTPProbe.get(port: port, path: "/event", method: "POST", headers: ["Origin: http://evil.example"])
    XCTAssertEqual(foreign.status, 403)
    let started = try HTTPProbe.get(port: port, path: "/event?duration=1s", method: "POST")
    XCTAssertEqual(started.status, 200, String(decoding: started.body, as: UTF8.self))
    usleep(4_000_000)
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)

    let names = try listing()
    let sidecars = names.filter { $0.hasPrefix("ev-") && $0.hasSuffix(".json") }
    XCTAssertEqual(sidecars.count, 2, "\(names)\n\(stderr)")
    let events = try sidecars.map(sidecar).sorted { ($0["triggered_at"] as? Double ?? 0) < ($1["triggered_at"] as? Double ?? 0) }
    XCTAssertEqual(events.map { $0["trigger"] as? String }, ["http", "signal"])
    // The end hook ran for each clip with the event in its environment; a start hook
    // that fails is a warning.
    XCTAssertEqual(stderr.components(separatedBy: "warning: hook false exited with status 1").count - 1, 2, stderr)
    for event in events {
      let trigger = try XCTUnwrap(event["trigger"] as? String)
      var hookOutput = ""
      for _ in 0..<50 where hookOutput.isEmpty {
        hookOutput = (try? String(contentsOfFile: path("hook-\(trigger).txt"), encoding: .utf8)) ?? ""
        if hookOutput.isEmpty { usleep(100_000) }
      }
      let lines = hookOutput.split(separator: "\n").map(String.init)
      XCTAssertTrue(lines.contains("CAMFX_EVENT=end"), hookOutput)
      XCTAssertTrue(lines.contains("CAMFX_EVENT_PATH=\(event["path"] as? String ?? "?")"), hookOutput)
      XCTAssertTrue(lines.contains("CAMFX_EVENT_TRIGGER=\(trigger)"), hookOutput)
      XCTAssertTrue(lines.contains { $0.hasPrefix("CAMFX_EVENT_END=") }, hookOutput)
    }
    for event in events {
      let clip = try XCTUnwrap(event["path"] as? String)
      let triggered = try XCTUnwrap(event["triggered_at"] as? Double)
      let start = try XCTUnwrap(event["start"] as? Double), end = try XCTUnwrap(event["end"] as? Double)
      // Keyframes come every 2 s (the pre-roll): the clip starts at most one interval
      // before its pre-roll, and ends its duration and post-roll after the trigger.
      XCTAssertLessThanOrEqual(start, triggered - 2 + 1e-6, "\(event)")
      XCTAssertGreaterThanOrEqual(start, triggered - 4 - 1e-6, "\(event)")
      let duration = event["trigger"] as? String == "http" ? 1.0 : 0
      XCTAssertEqual(end, triggered + duration + 1, accuracy: 1.0 / 30 + 1e-6, "\(event)")
      // The event's picture: the frame after the trigger, at the recording's size.
      let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(clip.replacingOccurrences(of: ".mp4", with: ".png")))))
      XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
      XCTAssertEqual(png.count > 24 ? Int(png[18]) << 8 | Int(png[19]) : 0, 320, "the PNG's width")
      XCTAssertEqual(png.count > 24 ? Int(png[22]) << 8 | Int(png[23]) : 0, 240, "the PNG's height")
      let probed = try MovieOracle.probe(path(clip))
      XCTAssertEqual(probed["video"]?.frames, event["frames"] as? Int)
      XCTAssertEqual(try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path(clip), "-f", "null", "-"]).stderr, "")
    }

    // camfx events lists them from their sidecars, filters by time and prunes.
    let listed = try CLI.run(["events", "."], in: dir)
    XCTAssertEqual(listed.status, 0, "\(listed)")
    let lines = listed.stdout.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, listed.stdout)
    XCTAssertTrue(lines.first?.contains("  http  ") == true && lines.last?.contains("  signal  ") == true, listed.stdout)
    XCTAssertEqual(try CLI.run(["events", ".", "--since", "1h"], in: dir).stdout.split(separator: "\n").count, 2)
    XCTAssertEqual(try CLI.run(["events", ".", "--until", "1h"], in: dir).stdout, "")
    let oldest = try XCTUnwrap(events.first?["path"] as? String)
    let pruned = try CLI.run(["events", ".", "--keep", "1"], in: dir)
    XCTAssertEqual(pruned.stderr, "camfx: deleted ./\(oldest)\n")
    XCTAssertEqual(pruned.stdout.split(separator: "\n").count, 1)
    XCTAssertTrue(pruned.stdout.contains("  signal  "), pruned.stdout)
    let left = try listing()
    XCTAssertFalse(left.contains(oldest), "\(left)")
    XCTAssertFalse(left.contains(oldest.replacingOccurrences(of: ".mp4", with: ".json")), "\(left)")
    XCTAssertFalse(left.contains(oldest.replacingOccurrences(of: ".mp4", with: ".png")), "\(left)")
  }

  /// A kill -9 during an event: the clip, a fragmented MP4 like every camfx file,
  /// plays to at most 1.5 s before the kill.
  func testAClipKilledMidwayPlaysToJustBeforeTheKill() throws {
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "320x240", "--duration", "60s", "--pre-record", "2s", "--gop", "15",
        "--post-record", "30s", "--event-output", "ev.mp4", "--x264-preset", "ultrafast", "--quiet", "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    // Well past the 2 s of pre-roll in the recording's own time, which a busy machine's
    // writer may run behind the wall clock.
    usleep(3_500_000)
    kill(process.processIdentifier, SIGUSR2)
    // The trigger's time in the recording, from its line; the kill comes 4 s later.
    var triggered: Double? = nil
    var waited = 0.0
    while triggered == nil && waited < 10 {
      let text = (try? String(contentsOfFile: path("stderr.txt"), encoding: .utf8)) ?? ""
      if let range = text.range(of: #"event \(signal\) at [0-9.]+ s"#, options: .regularExpression) {
        triggered = Double(text[range].split(separator: " ")[3])
      } else {
        usleep(20_000)
        waited += 0.02
      }
    }
    let start = try XCTUnwrap(triggered, "no event line")
    usleep(4_000_000)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let killedAt = start + 4.0 + waited
    let names = try listing()
    let clip = names.first { $0.hasPrefix("ev") && $0.hasSuffix(".mp4") }
    let frames = try XCTUnwrap(MovieOracle.probe(path(try XCTUnwrap(clip, "\(names)")))["video"]?.frames)
    // Where the clip starts in the recording: its packets are a run of the continuous
    // file's (which a kill -9 leaves playable too).
    let sizes = { (file: String) throws -> [Int] in
      String(
        decoding: try MovieOracle.run(
          "ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=size", "-of", "csv=p=0", self.path(file)]
        ).stdout, as: UTF8.self
      ).split(separator: "\n").compactMap { Int($0) }
    }
    let all = try sizes("all.mp4"), mine = try sizes(clip ?? "")
    let first = try XCTUnwrap(
      (0..<max(0, all.count - 5)).first { k in Array(all[k..<(k + 5)]) == Array(mine.prefix(5)) }, "the clip's start")
    let clipEnd = Double(first + frames) / 30
    // Its packets are the continuous file's from there on. Each file keeps its own
    // fragments of 1 s (the clip's counted from its own start), so either may end up to
    // a fragment behind the other at the kill.
    XCTAssertEqual(Array(all[first..<min(all.count, first + mine.count)]), Array(mine.prefix(all.count - first)))
    XCTAssertLessThanOrEqual(Double(all.count - (first + frames)) / 30, 1.0 + 1e-9, "the clip ends within a fragment of the continuous file")
    XCTAssertLessThanOrEqual(Double(first) / 30, start - 2 + 1e-6, "the clip starts before its pre-roll")
    XCTAssertGreaterThanOrEqual(clipEnd, killedAt - 1.5, "the clip plays to \(clipEnd) s, the kill came at \(killedAt) s")
    XCTAssertEqual(try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path(clip ?? ""), "-f", "null", "-"]).stderr, "")
    // Its sidecar, written when it started, says it was cut short; camfx events lists it.
    let listed = try CLI.run(["events", "."], in: dir)
    XCTAssertEqual(listed.status, 0, "\(listed)")
    XCTAssertTrue(listed.stdout.contains("(recording, or cut short: camfx repair finishes it)  signal  ./\(clip ?? "")"), listed.stdout)
    // Once repaired, the movie says the clip is finished, though its sidecar does not:
    // it is listed with the movie's own frames.
    let repaired = try CLI.run(["repair", clip ?? ""], in: dir)
    XCTAssertEqual(repaired.status, 0, "\(repaired)")
    let repairedFrames = try XCTUnwrap(MovieOracle.probe(path(clip ?? ""))["video"]?.frames)
    let relisted = try CLI.run(["events", "."], in: dir)
    XCTAssertEqual(relisted.status, 0, "\(relisted)")
    XCTAssertFalse(relisted.stdout.contains("(recording"), relisted.stdout)
    XCTAssertTrue(relisted.stdout.contains(" s  signal  \(repairedFrames) frames  ./\(clip ?? "")\n"), relisted.stdout)
  }

  /// A sidecar whose movie was deleted by hand stands for nothing: it is not listed and
  /// does not count toward --keep (which would delete a real clip in its place).
  func testAClipWhoseMovieIsGoneIsNeitherListedNorCounted() throws {
    try Data("movie".utf8).write(to: URL(fileURLWithPath: path("ev-1.mp4")))
    try writeSidecar("ev-1", ago: 120)
    try writeSidecar("ev-2", ago: 60)
    let listed = try CLI.run(["events", "."], in: dir)
    XCTAssertEqual(listed.status, 0, "\(listed)")
    XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, listed.stdout)
    XCTAssertTrue(listed.stdout.hasSuffix("  ./ev-1.mp4\n"), listed.stdout)
    let pruned = try CLI.run(["events", ".", "--keep", "1"], in: dir)
    XCTAssertEqual(pruned.status, 0, "\(pruned)")
    XCTAssertEqual(pruned.stderr, "")
    XCTAssertEqual(try listing(), ["ev-1.json", "ev-1.mp4", "ev-2.json"])
  }

  /// --keep deletes a clip's own files, named from the sidecar's own name: never the
  /// names its `files` or `path` list.
  func testPruningDeletesOnlyTheClipsOwnFiles() throws {
    for name in ["ev-1.mp4", "ev-1.png", "ev-2.mp4", "notes.txt", "keep-me.mp4"] {
      try Data(name.utf8).write(to: URL(fileURLWithPath: path(name)))
    }
    try writeSidecar("ev-1", ago: 120, files: ["ev-1.mp4", "notes.txt", "../outside.txt", "ev-1.json"])
    try writeSidecar("ev-2", ago: 60)
    // A sidecar naming another file as its clip is no event's.
    try JSONSerialization.data(withJSONObject: [
      "path": "keep-me.mp4", "start": 0.0, "end": 1.0, "triggered_at": 0.0,
      "triggered_at_epoch": Date().timeIntervalSince1970 - 300, "trigger": "signal", "triggers": 1, "frames": 30,
      "bytes": 1000, "files": ["keep-me.mp4"],
    ]).write(to: URL(fileURLWithPath: path("crafted.json")))
    let pruned = try CLI.run(["events", ".", "--keep", "1"], in: dir)
    XCTAssertEqual(pruned.status, 0, "\(pruned)")
    XCTAssertEqual(pruned.stderr, "camfx: deleted ./ev-1.mp4\n")
    XCTAssertEqual(try listing(), ["crafted.json", "ev-2.json", "ev-2.mp4", "keep-me.mp4", "notes.txt"])
    XCTAssertTrue(pruned.stdout.hasSuffix("  ./ev-2.mp4\n"), pruned.stdout)
  }

  /// `camfx events` given a file, or a folder that is not there: one line, status 1.
  func testEventsOfAFileOrAMissingFolderIsOneLineError() throws {
    try Data("movie".utf8).write(to: URL(fileURLWithPath: path("ev.mp4")))
    try assertFails(["events", "ev.mp4"], stderr: "camfx: error: 'ev.mp4' is not a folder", keep: ["ev.mp4"])
    try assertFails(
      ["events", "clips"], stderr: "camfx: error: cannot read the folder 'clips': No such file or directory", keep: ["ev.mp4"])
  }

  /// A clip whose folder went away ends alone: the recording goes on to its end, and
  /// the exit status says a clip was lost.
  func testAClipThatCannotBeWrittenLeavesTheRecordingWholeAndFailsTheExit() throws {
    try FileManager.default.createDirectory(atPath: path("clips"), withIntermediateDirectories: false)
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "160x120", "--duration", "4s", "--pre-record", "1s",
        "--event-output", "clips/ev.mp4", "--x264-preset", "ultrafast", "--quiet", "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    try FileManager.default.removeItem(atPath: path("clips"))
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationReason, .exit)
    XCTAssertEqual(process.terminationStatus, 1, stderr)
    XCTAssertTrue(
      stderr.hasSuffix(
        "camfx: error: 1 of 1 event clip(s) could not be written (clips/ev-000.mp4: open 'clips/ev-000.mp4' failed: "
          + "No such file or directory); all.mp4 is complete\n"), stderr)
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("all.mp4"))["video"]?.frames), 120, "the whole recording")
  }

  /// A hook's output joins camfx's messages on stderr; with `-o -` it never gets into
  /// the stream.
  func testAHooksOutputStaysOutOfTheStreamOnStdout() throws {
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "160x120", "--duration", "3s", "--pre-record", "1s",
        "--event-output", "ev.mp4", "--on-event-start", "echo HOOK-SAYS-HELLO", "--x264-preset", "ultrafast",
        "--quiet", "-o", "-",
      ], in: dir, stdout: "stream.ts")
    let deadline = Date().addingTimeInterval(20)
    while ((try? FileManager.default.attributesOfItem(atPath: path("stream.ts"))[.size] as? Int) ?? 0) == 0, Date() < deadline {
      usleep(20_000)
    }
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("HOOK-SAYS-HELLO\n"), stderr)
    let stream = try Data(contentsOf: URL(fileURLWithPath: path("stream.ts")))
    XCTAssertNil(stream.range(of: Data("HOOK-SAYS-HELLO".utf8)), "the hook's words are not in the stream")
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("stream.ts"))["video"]?.frames), 90)
    XCTAssertEqual(try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("stream.ts"), "-f", "null", "-"]).stderr, "")
  }

  /// A hook runs in a process group of its own with only its standard files open: at
  /// --hook-timeout it is stopped with what it left in the background, which holds
  /// neither camfx up nor any descriptor of camfx's.
  func testHooksAreStoppedWithWhatTheyLeftRunningAtTheTimeoutAndGetOnlyTheStandardFiles() throws {
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "160x120", "--duration", "3s", "--pre-record", "1s",
        "--event-output", "ev.mp4", "--x264-preset", "ultrafast", "--quiet", "--hook-timeout", "2s",
        "--on-event-start", "sh -c 'sleep 20 >/dev/null 2>&1 & echo $! > background.pid; ls /proc/self/fd > fds.txt'",
        "--on-event-end", "sleep 20", "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    let signalled = Date()
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let took = Date().timeIntervalSince(signalled)
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    // The start hook's child and the end hook (when the recording ends, at most 3 s
    // after the signal) each had 2 s; a second more for SIGTERM and the finish.
    XCTAssertLessThan(took, 3 + 2 + 3, stderr)
    XCTAssertTrue(
      stderr.contains("camfx: warning: hook sh left processes running after 2 s (--hook-timeout); they were stopped\n"),
      stderr)
    XCTAssertTrue(stderr.contains("camfx: warning: hook sleep took longer than 2 s (--hook-timeout) and was stopped\n"), stderr)
    // ls sees 0, 1 and 2, and 3: the folder it lists.
    XCTAssertEqual(try String(contentsOfFile: path("fds.txt"), encoding: .utf8), "0\n1\n2\n3\n")
    let background = try String(contentsOfFile: path("background.pid"), encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    // Gone, or a zombie that init has not reaped yet.
    let stat = try? String(contentsOfFile: "/proc/\(background)/stat", encoding: .utf8)
    XCTAssertTrue(stat.map { $0.contains(") Z ") } ?? true, stat ?? "")
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("ev-000.mp4"))["video"]?.frames), 90)
  }

  /// Both hooks get the same variables with the same meanings: the clip's start in the
  /// recording, its trigger's time, its sidecar (at the start the one that says it is in
  /// progress), as the clip's final sidecar has them.
  func testBothHooksGetTheClipsStartTriggerTimeAndSidecar() throws {
    let hook = "sh -c 'env | grep ^CAMFX_EVENT | sort > $CAMFX_EVENT.env; cat \"$CAMFX_EVENT_SIDECAR\" > $CAMFX_EVENT.json'"
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "160x120", "--duration", "6s", "--pre-record", "1s",
        "--post-record", "1s", "--event-output", "ev.mp4", "--x264-preset", "ultrafast", "--quiet",
        "--on-event-start", hook, "--on-event-end", hook, "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    usleep(2_500_000)
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)

    func variables(_ kind: String) throws -> [String: String] {
      let text = try String(contentsOfFile: path("\(kind).env"), encoding: .utf8)
      var variables: [String: String] = [:]
      for line in text.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        variables[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
      }
      return variables
    }
    let start = try variables("start"), end = try variables("end")
    let event = try sidecar("ev-000.json")
    let clipStart = try XCTUnwrap(event["start"] as? Double), triggeredAt = try XCTUnwrap(event["triggered_at"] as? Double)
    // The clip begins at a keyframe 1 s or more before its trigger.
    XCTAssertLessThanOrEqual(clipStart, triggeredAt - 1 + 1e-6, "\(event)")
    for (kind, variables) in [("start", start), ("end", end)] {
      XCTAssertEqual(variables["CAMFX_EVENT"], kind)
      XCTAssertEqual(variables["CAMFX_EVENT_PATH"], "ev-000.mp4", "\(kind): \(variables)")
      XCTAssertEqual(variables["CAMFX_EVENT_SIDECAR"], "ev-000.json", "\(kind): \(variables)")
      XCTAssertEqual(variables["CAMFX_EVENT_TRIGGER"], "signal", "\(kind): \(variables)")
      XCTAssertEqual(Double(variables["CAMFX_EVENT_START"] ?? "") ?? -1, clipStart, accuracy: 0.0005 + 1e-9, "\(kind): \(variables)")
      XCTAssertEqual(
        Double(variables["CAMFX_EVENT_TRIGGERED_AT"] ?? "") ?? -1, triggeredAt, accuracy: 0.0005 + 1e-9, "\(kind): \(variables)")
      XCTAssertEqual(variables["CAMFX_EVENT_SCORE"], "", "no motion detector")
    }
    XCTAssertNil(start["CAMFX_EVENT_END"], "the start hook is not told an end yet")
    XCTAssertEqual(Double(end["CAMFX_EVENT_END"] ?? "") ?? -1, try XCTUnwrap(event["end"] as? Double), accuracy: 0.0005 + 1e-9)
    // The sidecar each hook read: in progress at the start, final at the end.
    let startSidecar = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("start.json")))) as? [String: Any])
    XCTAssertEqual(startSidecar["in_progress"] as? Bool, true)
    XCTAssertEqual(startSidecar["start"] as? Double ?? -1, clipStart, accuracy: 1e-9)
    let endSidecar = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("end.json")))) as? [String: Any])
    XCTAssertNil(endSidecar["in_progress"])
    XCTAssertEqual(endSidecar["frames"] as? Int, try XCTUnwrap(MovieOracle.probe(path("ev-000.mp4"))["video"]?.frames))
  }

  /// SIGUSR2 without event clips is said and ignored: its default action would end
  /// camfx without finishing the file.
  func testSIGUSR2WithoutEventClipsIsIgnored() throws {
    let process = try CLI.start(
      ["record", "--source", "testsrc", "--size", "160x120", "--duration", "3s", "--x264-preset", "ultrafast", "--quiet",
       "-o", "all.mp4"], in: dir)
    waitForFile("all.mp4")
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationReason, .exit, stderr)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("camfx: SIGUSR2 ignored: event clips need --pre-record\n"), stderr)
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("all.mp4"))["video"]?.frames), 90)
  }

  func testBadEventOptionsAreOneLineErrors() throws {
    try assertFails(
      ["record", "--post-record", "3s", "-o", "a.mp4"],
      stderr: "camfx: error: --post-record sets event clips: add --pre-record TIME (e.g. --pre-record 5s)")
    // Clips named like the recording's own file (its segments) would take their names.
    try assertFails(
      ["record", "-y", "--segment", "1s", "--pre-record", "2s", "--event-output", "./cam.mp4", "-o", "cam.mp4"],
      stderr: "camfx: error: --event-output './cam.mp4' is the name of -o 'cam.mp4' too: give the clips names of their own, "
        + "e.g. 'event-%Y%m%d-%H%M%S.mp4'")
    // A clip's container that cannot hold the recording's video is refused at the start,
    // not at each event.
    try assertFails(
      ["record", "--video-codec", "vp9", "--pre-record", "2s", "--event-output", "ev.mov", "-o", "a.mkv"],
      stderr: "camfx: error: --event-output 'ev.mov': recording to 'ev-000.mov' failed: "
        + "the QuickTime (.mov) container cannot hold vp9 (Matroska, .mkv, holds every codec)")
    try assertFails(
      ["record", "--pre-record", "2s", "--gop", "120", "-o", "a.mp4"],
      stderr: "camfx: error: --gop 120 is longer than --pre-record 2.0 s (60 frames at 30.00 fps): an event clip could start up to 120 frames before it; give --gop 60 or less")
    try assertFails(
      ["record", "--pre-record", "5s", "--post-record", "10s", "--event-gap", "3s", "-o", "a.mp4"],
      stderr: "camfx: error: --event-gap 3s is shorter than --post-record 10s: a clip stays open at least its post-roll")
    try assertFails(
      ["record", "--pre-record", "2s", "--on-event-end", "no-such-program --x", "-o", "a.mp4"],
      stderr: "camfx: error: --on-event-end: 'no-such-program' is not an executable program (the command runs without a shell)")
    try assertFails(
      ["record", "--pre-record", "2s", "--mqtt", "mqtts://broker:8883/camfx/door", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt 'mqtts://broker:8883/camfx/door': mqtts:// (TLS) is not supported; use mqtt:// to a broker on this host or network")
    try assertFails(
      ["record", "--pre-record", "2s", "--mqtt", "mqtt://broker:1883", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt 'mqtt://broker:1883' has no topic: add one after the host, as in mqtt://host:1883/camfx/door")
    try assertFails(
      ["record", "--pre-record", "2s", "--mqtt", "mqtt://broker:99999/camfx", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt 'mqtt://broker:99999/camfx': the port '99999' must be a number from 1 to 65535")
    try assertFails(
      ["record", "--pre-record", "2s", "--mqtt", "mqtt://cam:s3cret@broker:0/camfx", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt 'mqtt://cam:***@broker:0/camfx': the port '0' must be a number from 1 to 65535")
    try assertFails(
      ["record", "--pre-record", "2s", "--mqtt", "mqtt://broker/camfx/#", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt 'mqtt://broker/camfx/#': the topic 'camfx/#' may not hold the wildcards + or #")
    try assertFails(
      ["record", "--mqtt", "mqtt://broker/camfx", "-o", "a.mp4"],
      stderr: "camfx: error: --mqtt sets event clips: add --pre-record TIME (e.g. --pre-record 5s)")
    try assertFails(
      ["record", "--pre-record", "0", "-o", "a.mp4"], stderr: "camfx: error: --pre-record must be more than 0 and at most 10m")
    try assertFails(
      ["record", "--pre-record", "20s", "--video-bitrate", "30M", "--pre-record-max", "16M", "-o", "a.mp4"],
      stderr: "camfx: error: --pre-record 20.0 s at 30000 kbit/s keeps about 75.0 MB of packets, more than --pre-record-max allows (16.0 MB): give a larger --pre-record-max or a shorter --pre-record")
  }
}
