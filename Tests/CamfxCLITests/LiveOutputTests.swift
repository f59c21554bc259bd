import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Several outputs of one encode, live streams into real servers on loopback (nginx
/// with the RTMP module, srt-live-transmit), HLS and pipes; everything they received
/// is decoded with ffprobe and compared with the file recorded beside it.
final class LiveOutputTests: CLITestCase {
  private let live = ["--size", "320x240", "--audio", "sine=440", "--x264-preset", "ultrafast", "--quiet"]

  /// The stats file's `outputs`, by name.
  private func outputReports(_ file: String) throws -> [String: [String: Any]] {
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(file)))) as? [String: Any])
    let outputs = try XCTUnwrap(json["outputs"] as? [[String: Any]], "no outputs in \(json)")
    return Dictionary(uniqueKeysWithValues: outputs.map { ($0["name"] as? String ?? "?", $0) })
  }

  /// An SRT listener on a free loopback port that holds each packet its latency and
  /// writes what it receives to `received.ts`; it ends when the sender closes.
  private func startSRTReceiver(latencyMilliseconds: Int) throws -> (LocalServer, port: Int, received: URL) {
    let port = try LocalServer.freePort(udp: true)
    let received = dir.appendingPathComponent("received.ts")
    let listener = "srt://:\(port)?mode=listener&latency=\(latencyMilliseconds)"
    let receiver = try LocalServer(
      "/usr/bin/srt-live-transmit", ["-q", "-a:no", listener, "file://con"], in: dir, stdout: received,
      ready: { LocalServer.isBound(udp: port) })
    return (receiver, port, received)
  }

  /// Starts camfx in the background (stderr to `stderr.txt`).
  private func startRecording(_ args: [String]) throws -> Process { try CLI.start(args, in: dir) }

  private func wait(for process: Process, seconds: Double = 90) {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  func testRTMPIntoNginxHoldsWhatTheFileHolds() throws {
    let server = try RTMPServer(in: dir)
    defer { server.stop() }
    let result = try CLI.run(live + ["--duration", "4s", "-o", "rec.mp4", "-o", server.url, "--stats-json", "s.json"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    server.stop()
    let flvs = try server.recorded()
    XCTAssertEqual(flvs.count, 1, "\(flvs)")
    let file = try MovieOracle.probe(path("rec.mp4"))
    let streamed = try MovieOracle.probe(try XCTUnwrap(flvs.first))
    let (fileVideo, streamVideo) = (try XCTUnwrap(file["video"]), try XCTUnwrap(streamed["video"]))
    XCTAssertEqual(fileVideo.frames, 120)
    XCTAssertLessThanOrEqual(abs(streamVideo.frames - fileVideo.frames), 2, "FLV \(streamVideo.frames) frames")
    XCTAssertEqual(streamVideo.codec, "h264")
    XCTAssertEqual(streamed["audio"]?.codec, "aac")
    // Sound and picture in step: the tone runs as long as the picture and starts with it.
    let audio = try XCTUnwrap(streamed["audio"])
    XCTAssertEqual(audio.frameTimes.first ?? 9, streamVideo.frameTimes.first ?? 0, accuracy: 0.05)
    XCTAssertEqual(
      (audio.frameTimes.last ?? 0) - (audio.frameTimes.first ?? 0),
      (streamVideo.frameTimes.last ?? 0) - (streamVideo.frameTimes.first ?? 0), accuracy: 0.1)
    let reports = try outputReports("s.json")
    XCTAssertEqual(reports[server.url]?["state"] as? String, "finished")
    XCTAssertEqual(reports[server.url]?["video_frames"] as? Int, 120)
    XCTAssertEqual(reports[server.url]?["dropped_frames"] as? Int, 0)
    XCTAssertEqual(reports["rec.mp4"]?["video_frames"] as? Int, 120)
  }

  func testServerRestartResumesTheStreamAndKeepsTheFileWhole() throws {
    let server = try RTMPServer(in: dir)
    defer { server.stop() }
    let camfx = try startRecording(live + ["--duration", "12s", "-o", "rec.mp4", "-o", server.url, "--stats-json", "s.json"])
    // Stop the server once it has recorded a second of the stream, for 3 s.
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      let size = try server.recorded().first.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 } ?? 0
      if size > 20_000 { break }
      usleep(50_000)
    }
    server.stop()
    sleep(3)
    try server.start()
    wait(for: camfx)
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(camfx.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("connected again"), stderr)
    server.stop()
    // The file beside it is whole.
    let file = try MovieOracle.probe(path("rec.mp4"))
    XCTAssertEqual(file["video"]?.frames, 360)
    // The stream resumed: a second FLV, starting at zero, that decodes.
    let flvs = try server.recorded()
    XCTAssertEqual(flvs.count, 2, "\(flvs)")
    let first = try MovieOracle.probe(flvs[0]), second = try MovieOracle.probe(flvs[1])
    XCTAssertGreaterThan(first["video"]?.frames ?? 0, 20)
    XCTAssertGreaterThan(second["video"]?.frames ?? 0, 90, "at least 3 s after the restart")
    XCTAssertEqual(second["video"]?.frameTimes.first ?? 9, 0, accuracy: 0.1)
    XCTAssertNotNil(second["audio"])
    let report = try XCTUnwrap(try outputReports("s.json")[server.url])
    XCTAssertEqual(report["reconnects"] as? Int, 1)
    // nginx recorded every frame sent but those in flight when it was stopped (in the
    // connection's buffers or the socket's): a few, never more than were sent.
    let sent = try XCTUnwrap(report["video_frames"] as? Int)
    let recorded = (first["video"]?.frames ?? 0) + (second["video"]?.frames ?? 0)
    XCTAssertGreaterThanOrEqual(sent, recorded)
    XCTAssertLessThanOrEqual(sent - recorded, 8, "sent \(sent), nginx recorded \(recorded)")
    XCTAssertGreaterThan(report["dropped_frames"] as? Int ?? 0, 0)
  }

  /// The receiver holds each packet 2.5 s (its latency, as on a long link) and drops
  /// what it holds when the connection closes: camfx keeps the connection open until
  /// the receiver has handed on the end of the stream (before, it lost the last 1.6 s
  /// here, and the last 8 frames once in CI with the default latency).
  func testSRTIntoSrtLiveTransmit() throws {
    let (receiver, port, received) = try startSRTReceiver(latencyMilliseconds: 2500)
    defer { receiver.stop() }
    let result = try CLI.run(live + ["--duration", "3s", "-o", "rec.mkv", "-o", "srt://127.0.0.1:\(port)"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    // The receiver ends when the sender closes (-a:no); give it a moment.
    let deadline = Date().addingTimeInterval(10)
    while receiver.process.isRunning && Date() < deadline { usleep(20_000) }
    receiver.stop()
    let streamed = try MovieOracle.probe(received.path)
    XCTAssertEqual(streamed["video"]?.codec, "h264")
    XCTAssertEqual(streamed["video"]?.frames, 90, "the last packets reach the receiver too")
    XCTAssertEqual(streamed["audio"]?.codec, "aac")
  }

  /// The wait for an SRT receiver's hand-on (here 8 s of receiver latency) is cut by a
  /// second Ctrl-C, as the encoder's drain is, and the file beside it plays.
  func testASecondInterruptCutsTheWaitForTheSRTReceiver() throws {
    let (receiver, port, _) = try startSRTReceiver(latencyMilliseconds: 8000)
    defer { receiver.stop() }
    let camfx = try startRecording(live + ["-o", "rec.mp4", "-o", "srt://127.0.0.1:\(port)"])
    // Two seconds of stream, held by the receiver for its 8 s (counted from the file's
    // first packet: by then the signal handlers are in place).
    waitForFile("rec.mp4")
    sleep(2)
    let stopping = secondsToStopAfterASecondInterrupt(
      camfx, between: 1, ending: "waiting for the receiver to hand the stream's end on")
    // Loosely bounded, as the other test process shares the two cores; without the cut
    // it takes the receiver's 8 s.
    XCTAssertLessThan(stopping, 4.0)
    XCTAssertEqual(camfx.terminationReason, .exit)
    // How many frames the two seconds hold depends on how busy the cores are; that the
    // file has them and decodes does not.
    XCTAssertGreaterThan(try MovieOracle.probe(path("rec.mp4"))["video"]?.frames ?? 0, 0)
    let decode = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("rec.mp4"), "-f", "null", "-"])
    XCTAssertEqual(decode.stderr, "")
  }

  func testHLSPlaylistPlaysAndOldSegmentsAreDeleted() throws {
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("hls"), withIntermediateDirectories: true)
    let result = try CLI.run(
      live + ["--duration", "10s", "--gop", "30", "-o", "hls/live.m3u8", "--hls-time", "1s", "--hls-list-size", "3"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let playlist = try String(contentsOfFile: path("hls/live.m3u8"), encoding: .utf8)
    let listed = playlist.split(separator: "\n").filter { $0.hasSuffix(".ts") }.map(String.init)
    XCTAssertEqual(listed, ["live-00007.ts", "live-00008.ts", "live-00009.ts"], playlist)
    XCTAssertTrue(playlist.contains("#EXT-X-TARGETDURATION:1"), playlist)
    // Deleted as promised: the listed segments and at most one more that players may
    // still be fetching.
    let onDisk = try listing("hls").filter { $0.hasSuffix(".ts") }
    XCTAssertTrue(Set(listed).isSubset(of: Set(onDisk)), "\(onDisk)")
    XCTAssertLessThanOrEqual(onDisk.count, 4, "\(onDisk)")
    XCTAssertFalse(onDisk.contains("live-00000.ts"))
    // The playlist plays: 3 s of the last segments.
    let played = try MovieOracle.probe(path("hls/live.m3u8"))
    XCTAssertEqual(played["video"]?.frames, 90)
    XCTAssertEqual(played["audio"]?.codec, "aac")
  }

  /// A full disk under an HLS output: libavformat's hls muxer closes the segment and the
  /// playlist it could not write without a word, and camfx used to exit 0 with an empty
  /// playlist. Now the output fails with the disk's error, and so does the recording.
  func testHLSOnAFullDiskFailsWithTheDisksError() throws {
    let disk = path("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    guard mount("tmpfs", disk, "tmpfs", 0, "size=64k") == 0 else { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
    defer { _ = umount2(disk, Int32(MNT_DETACH)) }
    let result = try CLI.run(live + ["--duration", "4s", "--hls-time", "1s", "-o", "disk/live.m3u8"], in: dir)
    XCTAssertEqual(result.status, 1, "\(result)")
    XCTAssertTrue(
      result.stderr.contains("camfx: error: disk/live.m3u8: writing 'disk/live.m3u8' failed: No space left on device"),
      result.stderr)
  }

  func testHLSWithFragmentedMP4Segments() throws {
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("hls"), withIntermediateDirectories: true)
    let result = try CLI.run(
      live + ["--duration", "4s", "-o", "hls/cam.m3u8", "--hls-segment-type", "fmp4", "-o", "rec.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let files = try listing("hls")
    XCTAssertTrue(files.contains("cam-init.mp4"), "\(files)")
    XCTAssertTrue(files.contains("cam-00000.m4s"), "\(files)")
    let played = try MovieOracle.probe(path("hls/cam.m3u8"))
    XCTAssertEqual(played["video"]?.frames, 120)
  }

  func testStdoutPipesIntoFFprobe() throws {
    let camfx = try CLI.executable.path
    let command = "'\(camfx)' record --source testsrc \(live.joined(separator: " ")) --duration 2s -o - "
      + "| ffprobe -v error -count_frames -show_entries stream=codec_name,nb_read_frames -of csv=p=0 -"
    let out = try MovieOracle.run("bash", ["-o", "pipefail", "-c", command]).stdout
    // (MPEG-TS lists its streams twice: in its program and on their own.)
    let streams = Set(String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init))
    XCTAssertEqual(streams.count, 2, "\(streams)")
    XCTAssertTrue(streams.contains("h264,60"), "\(streams)")
    let aac = try XCTUnwrap(streams.first { $0.hasPrefix("aac,") })
    XCTAssertEqual(Double(Int(aac.dropFirst(4)) ?? 0) * 1024 / 48_000, 2, accuracy: 0.05, "2 s of sound: \(aac)")
  }

  func testAReaderThatGoesAwayEndsOnlyItsOutput() throws {
    let camfx = try CLI.executable.path
    // head takes 20 kB and leaves: the pipe output ends, the file goes on to 3 s.
    let command = "'\(camfx)' record --source testsrc \(live.joined(separator: " ")) --duration 3s -o rec.mp4 -o - "
      + "2>err.txt | head -c 20000 > /dev/null; echo $? > status.txt"
    _ = try MovieOracle.run("bash", ["-c", "cd '\(dir.path)' && " + command])
    let stderr = try String(contentsOfFile: path("err.txt"), encoding: .utf8)
    XCTAssertTrue(stderr.contains("stdout: "), stderr)
    XCTAssertTrue(stderr.contains("this output has stopped"), stderr)
    XCTAssertEqual(try MovieOracle.probe(path("rec.mp4"))["video"]?.frames, 90)

    // Alone, a pipe whose reader went away ends the recording, cleanly.
    let alone = "'\(camfx)' record --source testsrc \(live.joined(separator: " ")) --duration 60s -o - "
      + "2>err2.txt | head -c 20000 > /dev/null"
    let started = Date()
    _ = try MovieOracle.run("bash", ["-c", "cd '\(dir.path)' && " + alone])
    XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    let stderr2 = try String(contentsOfFile: path("err2.txt"), encoding: .utf8)
    XCTAssertTrue(stderr2.contains("camfx: stdout: its reader has gone; this output has stopped"), stderr2)
    XCTAssertTrue(stderr2.contains("stopped by outputs-ended"), stderr2)
    XCTAssertFalse(stderr2.contains("error"), stderr2)
  }

  /// HLS into a directory camfx cannot write is refused before recording; one that
  /// fails while recording (its second segment cannot be created: a directory has its
  /// name), when it is the only output, fails the run.
  func testAnHLSOutputThatCannotWriteIsAnError() throws {
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("ro"), withIntermediateDirectories: true)
    chmod(path("ro"), 0o555)
    try assertFails(
      ["--duration", "1s", "-o", "ro/live.m3u8"],
      stderr: "camfx: error: output directory 'ro' is not writable (Permission denied)", keep: ["ro"], unprivileged: true)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("hls/live-00001.ts"), withIntermediateDirectories: true)
    let result = try CLI.run(
      live + ["--duration", "20s", "--gop", "30", "--hls-time", "1s", "-o", "hls/live.m3u8"], in: dir)
    XCTAssertEqual(result.status, 1, "\(result)")
    XCTAssertTrue(result.stderr.contains("stopped by outputs-ended"), result.stderr)
    XCTAssertTrue(
      result.stderr.hasSuffix("camfx: error: hls/live.m3u8: sending to 'hls/live.m3u8' failed: Is a directory\n"), result.stderr)
  }

  /// A stream that never connects, as the only output, kept nothing anywhere: that was
  /// "recorded 0 frames ... dropped 59" and exit 0.
  func testAnOnlyOutputThatNeverConnectsIsAFailure() throws {
    let url = "rtmp://127.0.0.1:1/x"  // nothing listens on port 1: connection refused
    let result = try CLI.run(live + ["--source", "testsrc", "--duration", "2s", "--stats-json", "s.json", "-o", url], in: dir)
    XCTAssertEqual(result.status, 1, "\(result)")
    var lines = result.stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(
      lines.popLast(),
      "camfx: error: nothing was recorded: \(url) took no frame (connecting to '\(url)' failed: Connection refused)")
    // Before it, only the output's attempts (never a lost connection): again after 1 s,
    // and once more as the recording finishes if packets were waiting for it then.
    XCTAssertEqual(lines.first, "camfx: \(url): cannot connect (Connection refused); trying again in 1 s", result.stderr)
    let again = "camfx: \(url): connecting to '\(url)' failed: Connection refused; "
    for line in lines.dropFirst() {
      XCTAssertTrue(
        line.hasPrefix(again + "trying again in ") || line == again + "this output has stopped", result.stderr)
    }
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("s.json"))) as? [String: Any])
    XCTAssertEqual(
      json["error"] as? String,
      "nothing was recorded: \(url) took no frame (connecting to '\(url)' failed: Connection refused)")
    XCTAssertEqual(try outputReports("s.json")[url]?["video_frames"] as? Int, 0)
  }

  /// Event clips beside a stream that never connects were kept: not a failure.
  func testClipsBesideAStreamThatNeverConnectsAreKept() throws {
    let process = try CLI.start(
      ["record", "--source", "testsrc", "--size", "160x120", "--duration", "3s", "--pre-record", "1s",
       "--event-output", "ev.mp4", "--x264-preset", "ultrafast", "--quiet", "-o", "rtmp://127.0.0.1:1/x"], in: dir)
    // Triggered a second after the stream's first refusal (from then on the handlers are in
    // place, and the pre-roll has frames), however long a busy machine took to start it.
    guard
      waitUntil("the stream's refusal said", while: process, {
        (try? String(contentsOfFile: path("stderr.txt"), encoding: .utf8))?.contains("trying again") ?? false
      })
    else { return }
    usleep(1_000_000)
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    let clip = try XCTUnwrap(try listing().first { $0.hasPrefix("ev") && $0.hasSuffix(".mp4") }, stderr)
    XCTAssertGreaterThan(try MovieOracle.probe(path(clip))["video"]?.frames ?? 0, 30)
    XCTAssertFalse(stderr.contains("error"), stderr)
  }

  func testBadOutputsAreRefusedBeforeAnythingIsWritten() throws {
    try assertFails(
      ["--duration", "1s", "-o", "gopher2://x/y"],
      prefix: "camfx: error: libavformat cannot write to 'gopher2://' URLs (it can write:")
    try assertFails(
      ["--duration", "1s", "-o", "tcp://127.0.0.1:9"],
      stderr: "camfx: error: no container is known for 'tcp://' outputs; add --format NAME (e.g. mpegts, flv)")
    try assertFails(
      ["--duration", "1s", "-o", "-", "--format", "nosuch"],
      stderr: "camfx: error: unknown --format 'nosuch' (a libavformat muxer name: mpegts, flv, matroska, nut, ...)")
    try assertFails(
      ["--duration", "1s", "-o", "a.mp4", "--format", "flv"],
      stderr: "camfx: error: --format picks the container of a network or pipe output (-o URL or -o -); a file's extension picks its own")
    try assertFails(["--duration", "1s", "-o", "a.mp4", "-o", "a.mp4"], stderr: "camfx: error: -o a.mp4 is given twice")
    try assertFails(
      ["--duration", "1s", "-o", "dup.mp4", "-o", "./dup.mp4"], stderr: "camfx: error: -o dup.mp4 and -o ./dup.mp4 are the same file")
    // Hosts and ports are checked before anything starts, not retried.
    try assertFails(["--duration", "1s", "-o", "rtmp://:99999/x"], stderr: "camfx: error: output URL 'rtmp://:99999/x' has no host")
    try assertFails(
      ["--duration", "1s", "-o", "rtmp://127.0.0.1:99999/live"],
      stderr: "camfx: error: output URL 'rtmp://127.0.0.1:99999/live': port '99999' is not a number from 1 to 65535")
    try assertFails(
      ["--duration", "1s", "-o", "srt://127.0.0.1"],
      stderr: "camfx: error: output URL 'srt://127.0.0.1' has no port (srt:// has no default one), e.g. srt://127.0.0.1:9000")
    try assertFails(
      ["--duration", "1s", "-o", "-", "--segment", "1s"],
      stderr: "camfx: error: --segment cuts movie files: add -o with a .mp4, .mov or .mkv name")
    try assertFails(["--duration", "1s", "-o", "rtmp://"], stderr: "camfx: error: output URL 'rtmp://' has no host")
    try assertFails(["--duration", "1s", "-o", "nodir/x.m3u8"], prefix: "camfx: ")
    try assertFails(
      ["--duration", "1s", "-o", "x.m3u8", "--hls-segment-type", "mp4"],
      stderr: "camfx: error: invalid --hls-segment-type 'mp4' (expected ts or fmp4)")
  }
}
