import Foundation
import XCTest

/// `camfx record --pre-record … --mqtt`: each clip's start and end reach a subscriber
/// through Debian's mosquitto broker, and a broker that goes away mid-recording stops
/// nothing: the messages arrive when it is back.
final class EventMQTTTests: CLITestCase {
  /// mosquitto on a free loopback port, keeping its sessions in `dir` across a restart.
  private func startBroker(port: Int) throws -> LocalServer {
    let config = path("mosquitto.conf")
    try """
      listener \(port) 127.0.0.1
      allow_anonymous true
      persistence true
      persistence_location \(dir.path)/
      """.write(toFile: config, atomically: true, encoding: .utf8)
    return try LocalServer("/usr/sbin/mosquitto", ["-c", config], in: dir) { LocalServer.isListening(tcp: port) }
  }

  /// The `type` and `path` of each message on camfx/test/events that `mosquitto_sub -v`
  /// wrote, in order, with QoS 1's repeats left out.
  private func changes(in file: String) -> [String] {
    let text = (try? String(contentsOfFile: path(file), encoding: .utf8)) ?? ""
    var seen: [String] = []
    for line in text.split(separator: "\n") where line.hasPrefix("camfx/test/events ") {
      guard
        let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst("camfx/test/events ".count).utf8))
          as? [String: Any],
        let type = json["type"] as? String, let clip = json["path"] as? String
      else { continue }
      let change = "\(type) \(clip)"
      if !seen.contains(change) { seen.append(change) }
    }
    return seen
  }

  private func waitFor(seconds: Double, _ isDone: () -> Bool) {
    let deadline = Date().addingTimeInterval(seconds)
    while !isDone() && Date() < deadline { usleep(50_000) }
  }

  /// A broker that never came: the messages kept for it are counted at the end, not
  /// dropped without a word; the recording itself is whole.
  func testMessagesABrokerNeverTookAreSaidAtTheEnd() throws {
    let port = try LocalServer.freePort()
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "160x120", "--duration", "3s", "--pre-record", "1s",
        "--post-record", "1s", "--event-output", "ev.mp4", "--mqtt", "mqtt://127.0.0.1:\(port)/camfx/test",
        "--x264-preset", "ultrafast", "--quiet", "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    kill(process.processIdentifier, SIGUSR2)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("warning: MQTT mqtt://127.0.0.1:\(port)/camfx/test: cannot connect"), stderr)
    // The clip's start and end messages at least.
    let said = try XCTUnwrap(
      stderr.firstMatch(of: /MQTT mqtt:\/\/127\.0\.0\.1:\d+\/camfx\/test: (\d+) message\(s\) not delivered: the broker was away when camfx ended/),
      stderr)
    XCTAssertGreaterThanOrEqual(Int(said.1) ?? 0, 2, stderr)
    XCTAssertEqual(try XCTUnwrap(MovieOracle.probe(path("all.mp4"))["video"]?.frames), 90)
  }

  func testStartAndEndReachASubscriberAndWaitForABrokerThatWasAway() throws {
    let port = try LocalServer.freePort()
    var broker = try startBroker(port: port)
    // A subscriber with a session the broker keeps (-c): what is published while it is
    // reconnecting is kept for it.
    let began = Date()
    let subscriber = try LocalServer(
      "/usr/bin/mosquitto_sub",
      ["-h", "127.0.0.1", "-p", "\(port)", "-t", "camfx/test/#", "-v", "-q", "1", "-c", "-i", "camfx-test-sub"],
      in: dir, stdout: URL(fileURLWithPath: path("sub.txt"))
    ) { Date().timeIntervalSince(began) > 0.5 }
    let process = try CLI.start(
      [
        "record", "--source", "testsrc", "--size", "320x240", "--duration", "14s", "--pre-record", "1s",
        "--post-record", "1s", "--event-output", "ev-%H%M%S.mp4", "--mqtt", "mqtt://127.0.0.1:\(port)/camfx/test",
        "--quiet", "-o", "all.mp4",
      ], in: dir)
    waitForFile("all.mp4")
    usleep(1_500_000)
    kill(process.processIdentifier, SIGUSR2)
    waitFor(seconds: 6) { changes(in: "sub.txt").count >= 2 }
    let first = changes(in: "sub.txt")
    XCTAssertEqual(first.map { $0.split(separator: " ")[0] }, ["start", "end"], "\(first)")

    // The broker goes away; the next clip is recorded all the same.
    broker.stop()
    usleep(1_000_000)  // and the next clip's name has a second of its own
    kill(process.processIdentifier, SIGUSR2)
    usleep(1_500_000)
    XCTAssertTrue(process.isRunning, "the recording goes on without its broker")
    broker = try startBroker(port: port)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("warning: MQTT mqtt://127.0.0.1:\(port)/camfx/test: connection lost"), stderr)
    XCTAssertTrue(stderr.contains("MQTT mqtt://127.0.0.1:\(port)/camfx/test: connected again"), stderr)
    XCTAssertEqual(try MovieOracle.probe(path("all.mp4"))["video"]?.frames, 420, "the continuous file holds every frame")

    let sidecars = try listing().filter { $0.hasPrefix("ev-") && $0.hasSuffix(".json") }.sorted()
    XCTAssertEqual(sidecars.count, 2, stderr)
    let clips = sidecars.map { $0.replacingOccurrences(of: ".json", with: ".mp4") }
    waitFor(seconds: 10) { changes(in: "sub.txt").count >= 4 }
    XCTAssertEqual(
      changes(in: "sub.txt"), clips.flatMap { ["start \($0)", "end \($0)"] },
      (try? String(contentsOfFile: path("sub.txt"), encoding: .utf8)) ?? "")
    subscriber.stop()

    // A subscriber that comes later reads the state, retained: not recording, the last
    // clip, and camfx offline.
    let state = try MovieOracle.run(
      "mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", "camfx/test/state", "-t", "camfx/test/available", "-v", "-C", "2", "-W", "5"])
    let lines = String(decoding: state.stdout, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    XCTAssertEqual(lines.first, "camfx/test/available offline", "\(lines)")
    let retained = try XCTUnwrap(lines.last.flatMap { $0.split(separator: " ", maxSplits: 1).last })
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(retained.utf8)) as? [String: Any])
    XCTAssertEqual(json["recording"] as? Bool, false)
    XCTAssertEqual((json["event"] as? [String: Any])?["path"] as? String, clips.last)
    XCTAssertEqual((json["event"] as? [String: Any])?["frames"] as? Int, try MovieOracle.probe(path(clips.last ?? ""))["video"]?.frames)
    broker.stop()
  }
}
