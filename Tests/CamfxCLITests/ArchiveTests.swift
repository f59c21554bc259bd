import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `--archive s3://…` and `camfx archive` against a real S3 server on loopback (`rclone
/// serve s3`), every object read back with boto3 and compared with the file byte for
/// byte. They record on the wall clock: the wall-clock group of `make test` runs them.
final class ArchiveTests: CLITestCase {
  private let fast = ["--x264-preset", "ultrafast", "--size", "320x240"]

  private func archiveArgs(_ server: S3TestServer, prefix: String = "cams") -> [String] {
    ["--archive", "s3://\(server.bucket)/\(prefix)", "--archive-endpoint", server.endpoint]
  }

  private func stderr(_ name: String = "stderr.txt") -> String {
    (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? ""
  }

  private func waitForExit(_ process: Process, seconds: Double = 120) {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// Asserts that every local file in `names` is in the store under `prefix/name`,
  /// byte-equal, with its MD5 as the ETag.
  private func assertArchived(
    _ names: [String], in store: S3Oracle, prefix: String = "cams", file: StaticString = #filePath, line: UInt = #line
  ) throws {
    for name in names {
      let key = "\(prefix)/\(name)"
      guard store.objects[key] != nil else {
        XCTFail("\(key) is not in the store: \(store.objects.keys.sorted())", file: file, line: line)
        continue
      }
      let local = try Data(contentsOf: dir.appendingPathComponent(name))
      XCTAssertEqual(try store.bytes(key), local, "\(key) differs from \(name)", file: file, line: line)
    }
  }

  /// 20 s of 2 s segments and an event clip: every segment, the clip, its sidecar and its
  /// picture end up in the store, byte-equal; the journal says each is archived.
  func testEverySegmentAndEventFileArrivesByteEqual() throws {
    let server = try S3TestServer(in: dir)
    let process = try CLI.start(
      ["record", "--duration", "20s", "--segment", "2s", "--pre-record", "2s", "--post-record", "2s",
       "--event-output", "ev-%H%M%S.mp4", "--quiet", "-o", "seg.mp4"] + fast + archiveArgs(server),
      in: dir, environment: S3TestServer.environment)
    waitForFile("seg-000.mp4")
    sleep(6)
    kill(process.processIdentifier, SIGUSR2)
    waitForExit(process)
    XCTAssertEqual(process.terminationStatus, 0, stderr())
    let files = try listing().filter { !$0.hasPrefix(".") && !$0.hasPrefix("rclone-") && $0 != "stderr.txt" && $0 != "s3" }
    let segments = files.filter { $0.hasPrefix("seg-") }
    let clips = files.filter { $0.hasPrefix("ev-") }
    XCTAssertGreaterThanOrEqual(segments.count, 10, "\(files)")
    XCTAssertEqual(Set(clips.map { ($0 as NSString).pathExtension }), ["mp4", "json", "png"], "\(files)")
    XCTAssertTrue(stderr().contains("archive: \(files.count) file(s)"), stderr())
    let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
    try assertArchived(files, in: store)
    XCTAssertEqual(store.objects.count, files.count, "\(store.objects.keys.sorted())")
    for name in files {
      let md5 = try MovieOracle.run("md5sum", [path(name)]).stdout
      XCTAssertEqual(store.objects["cams/\(name)"]?.etag, String(decoding: md5.prefix(32), as: UTF8.self), name)
    }
    XCTAssertEqual(store.uploads, [])
    let journal = try String(contentsOfFile: path(".camfx-archive.json"), encoding: .utf8)
    XCTAssertFalse(journal.contains("\"archived\" : false"), journal)
  }

  /// The store goes away for 10 s mid-recording: the recording is not held up by it (at
  /// most the handful of frames a busy machine may drop; none here), /state and
  /// /metrics show the backlog and the outage, one line says the outage began and one
  /// that it ended, and the backlog drains byte-equal.
  func testAStoreDownForTenSecondsLosesNothing() throws {
    let server = try S3TestServer(in: dir)
    let port = try LocalServer.freePort()
    let process = try CLI.start(
      ["record", "--duration", "20s", "--segment", "2s", "--quiet", "--stats-json", "stats.json", "-o", "seg.mp4",
       "--preview", "127.0.0.1:\(port)"] + fast + archiveArgs(server),
      in: dir, environment: S3TestServer.environment)
    waitForFile("seg-000.mp4")
    // The store goes away once it holds the first segment (about 3 s in on a quiet machine).
    guard
      waitUntil("the first segment stored: \(stderr())", interval: 0.1, {
        let state = try? JSONSerialization.jsonObject(with: HTTPProbe.get(port: port, path: "/state").body) as? [String: Any]
        return ((state?["archive"] as? [String: Any])?["archived_files"] as? Int ?? 0) >= 1
      })
    else { return }
    server.stop()
    sleep(6)
    // The backlog, as /state and /metrics show it while the store is away.
    let state = try XCTUnwrap(
      JSONSerialization.jsonObject(with: HTTPProbe.get(port: port, path: "/state").body) as? [String: Any])
    let archive = try XCTUnwrap(state["archive"] as? [String: Any], "\(state)")
    XCTAssertEqual(archive["destination"] as? String, "s3://\(server.bucket)/cams")
    XCTAssertGreaterThanOrEqual(archive["files"] as? Int ?? 0, 2, "\(archive)")
    XCTAssertGreaterThan(archive["bytes"] as? Int ?? 0, 0, "\(archive)")
    XCTAssertGreaterThan(archive["oldest_waiting_seconds"] as? Double ?? 0, 1, "\(archive)")
    XCTAssertGreaterThanOrEqual(archive["archived_files"] as? Int ?? 0, 1, "\(archive)")
    XCTAssertNotNil(archive["outage"] as? String, "\(archive)")
    let metrics = String(decoding: try HTTPProbe.get(port: port, path: "/metrics").body, as: UTF8.self)
    let labels = #"{camera="camera",destination="s3://\#(server.bucket)/cams"}"#
    XCTAssertTrue(metrics.contains("camfx_archive_up\(labels) 0"), metrics)
    let waitingLine = metrics.split(separator: "\n").first { $0.hasPrefix("camfx_archive_waiting_files\(labels) ") }
    XCTAssertGreaterThanOrEqual(Double(waitingLine?.split(separator: " ").last ?? "") ?? 0, 2, metrics)
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") {
      try Data(metrics.utf8).write(to: URL(fileURLWithPath: path("metrics.txt")))
      let lint = try MovieOracle.run("sh", ["-c", "promtool check metrics < '\(path("metrics.txt"))' 2>&1"])
      XCTAssertEqual(String(decoding: lint.stdout, as: UTF8.self) + lint.stderr, "")
    }
    sleep(4)
    try server.start()
    waitForExit(process)
    let log = stderr()
    XCTAssertEqual(process.terminationStatus, 0, log)
    let outageLines = log.split(separator: "\n").filter { $0.contains("retrying") }
    XCTAssertEqual(outageLines.count, 1, log)
    XCTAssertEqual(log.split(separator: "\n").filter { $0.contains("answers again") }.count, 1, log)
    let stats = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    // A machine busy with other tests may stall the live source for a moment (a handful of
    // frames); a recording held up by the outage would lose seconds of them.
    let dropped = try XCTUnwrap((stats["dropped"] as? [String: Int])?.values.reduce(0, +), "\(stats)")
    XCTAssertEqual((stats["frames_out"] as? Int ?? 0) + dropped, 600, "\(stats)")
    XCTAssertLessThanOrEqual(dropped, 15, "\(stats)")
    let segments = try listing().filter { $0.hasPrefix("seg-") }
    XCTAssertGreaterThanOrEqual(segments.count, 10)
    let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
    try assertArchived(segments, in: store)
    XCTAssertEqual(store.objects.count, segments.count)
  }

  /// kill -9 during a multipart upload, at three moments (its upload started but no part
  /// noted, after the first part, half way), then `camfx archive` again: the object ends
  /// complete and byte-equal, and no multipart upload is left in the store.
  func testAKilledMultipartUploadEndsCompleteWithNoUploadLeft() throws {
    let server = try S3TestServer(in: dir)
    // 100 MB (over the 64 MiB a single PUT takes) in 16 MiB parts: 6 parts.
    let big = path("big.mp4")
    let random = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
    XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: random.readData(ofLength: 100_000_000)))
    try random.close()
    let args = ["archive", dir.path, "s3://\(server.bucket)/cams", "--endpoint", server.endpoint]
    for (n, partsBeforeKill) in [0, 1, 3].enumerated() {
      let key = "run\(n)/big.mp4"
      let target = path("run\(n)")
      try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: big, toPath: target + "/big.mp4")
      let process = try CLI.start(args + [target + "/big.mp4"], in: dir, stderr: "kill\(n).txt", environment: S3TestServer.environment)
      // The journal notes the upload's ID, then each part the store confirmed.
      let deadline = Date().addingTimeInterval(60)
      while process.isRunning && Date() < deadline {
        let journal = (try? String(contentsOfFile: path(".camfx-archive.json"), encoding: .utf8)) ?? ""
        let parts = journal.components(separatedBy: "\"number\"").count - 1
        if journal.contains("\"id\"") && parts >= partsBeforeKill { break }
        usleep(2_000)
      }
      XCTAssertTrue(process.isRunning, "run \(n) ended before it could be killed: \(stderr("kill\(n).txt"))")
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let again = try CLI.run(args, in: dir, environment: S3TestServer.environment)
      XCTAssertEqual(again.status, 0, "\(again)")
      XCTAssertTrue(again.stderr.contains("archive: 1 file(s) (100.0 MB) archived"), again.stderr)
      if partsBeforeKill > 0 {
        XCTAssertTrue(again.stderr.contains("goes on from its upload's"), "run \(n) started again: \(again.stderr)")
      }
      let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
      XCTAssertEqual(try store.bytes("cams/\(key)"), try Data(contentsOf: URL(fileURLWithPath: big)), "run \(n)")
      XCTAssertEqual(store.uploads, [], "run \(n) left a multipart upload")
      try FileManager.default.removeItem(atPath: target)
    }
  }

  /// A wrong secret key, a missing bucket and a store that does not answer are each one
  /// line before anything is recorded; --archive-lazy records anyway, and the exit says
  /// what was left.
  func testAStoreThatRefusesIsFoundBeforeRecording() throws {
    let server = try S3TestServer(in: dir)
    let record = ["record", "--duration", "2s", "--quiet", "-o", "a.mp4"] + fast
    let wrongKey = try CLI.run(
      record + archiveArgs(server), in: dir,
      environment: ["AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": "wrong"])
    XCTAssertEqual(wrongKey.status, 1)
    XCTAssertEqual(wrongKey.stderr.split(separator: "\n").count, 1, wrongKey.stderr)
    XCTAssertTrue(wrongKey.stderr.contains("refused the key (HTTP 403)"), wrongKey.stderr)
    let noBucket = try CLI.run(
      record + ["--archive", "s3://no-such-bucket/x", "--archive-endpoint", server.endpoint], in: dir,
      environment: S3TestServer.environment)
    XCTAssertEqual(noBucket.status, 1)
    XCTAssertEqual(noBucket.stderr, "camfx: error: --archive s3://no-such-bucket/x: no bucket 'no-such-bucket' at \(server.endpoint)\n")
    XCTAssertEqual(try listing().filter { !$0.hasPrefix("s3") && !$0.hasPrefix("rclone-") }, [], "nothing is recorded")
    let noKeys = try CLI.run(record + archiveArgs(server), in: dir, environment: ["AWS_ACCESS_KEY_ID": "", "HOME": dir.path])
    XCTAssertEqual(noKeys.status, 1)
    XCTAssertTrue(noKeys.stderr.hasPrefix("camfx: error: no credentials for the archive"), noKeys.stderr)

    server.stop()
    let down = try CLI.run(record + archiveArgs(server), in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(down.status, 1)
    XCTAssertTrue(down.stderr.contains("cannot reach \(server.endpoint)"), down.stderr)
    let lazy = try CLI.run(
      record + archiveArgs(server) + ["--archive-lazy", "--archive-wait", "2s"], in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(lazy.status, 1, "\(lazy)")
    XCTAssertTrue(lazy.stderr.contains("1 file(s) were not archived"), lazy.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: path("a.mp4")))
    // What was left goes with camfx archive once the store is back.
    try server.start()
    let later = try CLI.run(
      ["archive", dir.path, "s3://\(server.bucket)/cams", "--endpoint", server.endpoint], in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(later.status, 0, "\(later)")
    let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
    try assertArchived(["a.mp4"], in: store)
  }

  /// Loop recording on a small tmpfs with the store away: no segment goes before the
  /// store has it, past --keep; when it comes, the archived ones go down to
  /// --archive-keep-local. With the store away and the disk about to fill, the oldest
  /// unarchived one goes, loudly, and the exit says so.
  func testLoopRecordingDeletesOnlyWhatTheStoreHas() throws {
    let disk = path("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    guard mount("tmpfs", disk, "tmpfs", 0, "size=4M") == 0 else { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
    defer { _ = umount2(disk, Int32(MNT_DETACH)) }
    let server = try S3TestServer(in: dir)
    server.stop()
    let process = try CLI.start(
      ["record", "--duration", "14s", "--segment", "1s", "--keep", "3", "--archive-keep-local", "1", "--archive-lazy",
       "--quiet", "--stats-json", "stats.json", "-o", "disk/seg.mp4"] + fast + archiveArgs(server),
      in: dir, environment: S3TestServer.environment)
    waitForFile("disk/seg-000.mp4")
    // 6 s without the store: every segment stays, --keep 3 or not.
    var made = Set<String>()
    let storeComes = Date().addingTimeInterval(6)
    while Date() < storeComes {
      let now = Set(try listing("disk").filter { $0.hasPrefix("seg-") })
      XCTAssertTrue(made.isSubset(of: now), "deleted before archived: \(made.subtracting(now))")
      made.formUnion(now)
      usleep(100_000)
    }
    XCTAssertGreaterThanOrEqual(made.count, 5)
    try server.start()
    // From now on a segment gone from the disk is in the store.
    while process.isRunning {
      let now = Set(try listing("disk").filter { $0.hasPrefix("seg-") })
      for gone in made.subtracting(now) {
        XCTAssertTrue(
          FileManager.default.fileExists(atPath: server.folder.path + "/\(server.bucket)/cams/\(gone)"),
          "\(gone) left the disk before it was in the store")
      }
      made.formUnion(now)
      usleep(50_000)
    }
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, stderr())
    let left = try listing("disk").filter { $0.hasPrefix("seg-") }
    // The newest archived one (and the last, if it was archived after the others went).
    XCTAssertLessThanOrEqual(left.count, 2, "\(left)")
    let stats = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    let segments = try XCTUnwrap(stats["segments"] as? [[String: Any]])
    let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
    for segment in segments {
      let name = try XCTUnwrap(segment["name"] as? String).replacingOccurrences(of: "disk/", with: "")
      let object = try XCTUnwrap(store.objects["cams/\(name)"], "\(name) is not in the store")
      XCTAssertEqual(Int64(object.size), segment["bytes"] as? Int64 ?? Int64(segment["bytes"] as? Int ?? -1), name)
      XCTAssertEqual(
        try MovieOracle.run("ffprobe", ["-v", "error", "-i", store.folder.appendingPathComponent("cams/\(name)").path]).stderr, "", name)
    }

    // The store away for good, and a disk that fills: --min-free takes the oldest
    // unarchived segment, and says so.
    for name in try listing("disk") { try FileManager.default.removeItem(atPath: disk + "/" + name) }
    server.stop()
    let full = try CLI.run(
      ["record", "--frames", "300", "--no-realtime", "--crf", "0", "--segment", "1s", "--keep", "3", "--min-free", "4000k",
       "--archive-lazy", "--archive-wait", "1s", "--quiet", "-o", "disk/seg.mp4"] + fast + archiveArgs(server),
      in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(full.status, 1, "\(full)")
    XCTAssertTrue(full.stderr.contains("was deleted before it was archived: free space on 'disk' fell below --min-free"), full.stderr)
    XCTAssertTrue(full.stderr.contains("were deleted before they were archived"), full.stderr)
  }

  /// `archive:` in a `camfx run` file: each camera's files under its own prefix; two
  /// cameras' folders under one prefix are refused before anything records.
  func testARunFileArchivesEachCameraUnderItsPrefix() throws {
    let server = try S3TestServer(in: dir)
    try FileManager.default.createDirectory(atPath: path("front"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: path("back"), withIntermediateDirectories: true)
    func file(_ back: String) -> String {
      """
      cameras:
        front:
          source: testsrc
          size: 320x240
          duration: 4s
          segment: 2s
          x264-preset: ultrafast
          output: front/seg.mp4
          archive: s3://\(server.bucket)/site/front
          archive-endpoint: \(server.endpoint)
        back:
          source: testsrc
          size: 320x240
          duration: 4s
          x264-preset: ultrafast
          output: back/one.mp4
          archive: s3://\(server.bucket)/site/\(back)
          archive-endpoint: \(server.endpoint)
      """
    }
    try file("front").write(toFile: path("shared.yml"), atomically: true, encoding: .utf8)
    let shared = try CLI.run(["run", "shared.yml", "--quiet"], in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(shared.status, 1)
    XCTAssertTrue(
      shared.stderr.contains("cameras.back.archive: s3://\(server.bucket)/site/front takes the files of camera 'front'"), shared.stderr)
    XCTAssertEqual(try listing("front") + listing("back"), [])
    try file("back").write(toFile: path("cams.yml"), atomically: true, encoding: .utf8)
    let run = try CLI.run(["run", "cams.yml", "--quiet"], in: dir, environment: S3TestServer.environment)
    XCTAssertEqual(run.status, 0, "\(run)")
    let store = try S3Oracle.read(server, into: dir.appendingPathComponent("from-store"))
    let front = try listing("front").filter { !$0.hasPrefix(".") }, back = try listing("back").filter { !$0.hasPrefix(".") }
    XCTAssertEqual(front.count, 2, "\(front)")
    XCTAssertEqual(back, ["one.mp4"])
    XCTAssertEqual(Set(store.objects.keys), Set(front.map { "site/front/\($0)" } + ["site/back/one.mp4"]))
    for name in front { XCTAssertEqual(try store.bytes("site/front/\(name)"), try Data(contentsOf: dir.appendingPathComponent("front/\(name)"))) }
    XCTAssertEqual(try store.bytes("site/back/one.mp4"), try Data(contentsOf: dir.appendingPathComponent("back/one.mp4")))
  }
}
