import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium (Debian's `chromium`) on one page, driven over the DevTools
/// protocol through `TestWebSocket`: what a test needs of a real browser that plays
/// video (evaluate a script, take a screenshot). Each one has a profile of its own and
/// ends its browser, helpers and all, when closed.
final class DevToolsBrowser {
  static let executable = "/usr/bin/chromium"
  static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let process = Process()
  private let profile: String
  private let errors = Pipe()
  /// The browser's process group when it leads one of its own (Foundation starts it so
  /// on Linux): its renderer and zygotes are in it, and signalling the group ends them
  /// too. Never the test's own group.
  private let group: pid_t?
  private let socket: TestWebSocket
  private var nextID = 0
  private var closed = false

  /// Starts the browser on `url` and connects to its page.
  init(url: String, ignoreCertificateErrors: Bool = false, extraArguments: [String] = []) throws {
    profile = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-chromium-\(UUID().uuidString)").path
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments =
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0", "--user-data-dir=\(profile)",
        "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--window-size=1280,800", "--hide-scrollbars",
      ] + (ignoreCertificateErrors ? ["--ignore-certificate-errors"] : []) + extraArguments + [url]
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let pid = process.processIdentifier
    group = getpgid(pid) == pid ? pid : nil
    // The browser says where its DevTools listen on stderr.
    var said = ""
    var port: Int?
    let deadline = Date().addingTimeInterval(20)
    let handle = errors.fileHandleForReading
    while port == nil, Date() < deadline, process.isRunning {
      var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 200) > 0 else { continue }
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      said += String(decoding: chunk, as: UTF8.self)
      if let match = said.firstMatch(of: /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//) { port = Int(match.1) }
    }
    guard let port else {
      Self.end(process, group: group, profile: profile)
      throw Failure(description: "chromium never said where its DevTools listen: \(said)")
    }
    // Keep draining stderr so that the browser never blocks on a full pipe.
    handle.readabilityHandler = { _ = $0.availableData }
    var pagePath: String?
    while pagePath == nil, Date() < deadline {
      if let list = try? HTTPProbe.get(port: port, path: "/json/list", seconds: 2),
        let targets = try? JSONSerialization.jsonObject(with: list.body) as? [[String: Any]],
        let page = targets.first(where: { $0["type"] as? String == "page" }),
        let address = page["webSocketDebuggerUrl"] as? String,
        let range = address.range(of: "/devtools/")
      {
        pagePath = String(address[range.lowerBound...])
      } else {
        usleep(100_000)
      }
    }
    guard let pagePath else {
      Self.end(process, group: group, profile: profile)
      throw Failure(description: "chromium listed no page on port \(port)")
    }
    do {
      socket = try TestWebSocket(port: port, path: pagePath)
    } catch {
      Self.end(process, group: group, profile: profile)
      throw error
    }
  }

  deinit { close() }

  /// The value of `expression` in the page (`Runtime.evaluate`, by value).
  /// - Throws: `Failure` with the page's exception when the script threw.
  func evaluate(_ expression: String, awaitPromise: Bool = false) throws -> Any? {
    let result = try call(
      "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": awaitPromise])
    if let exception = result["exceptionDetails"] as? [String: Any] {
      // An Error has a description (its stack); `throw 'text'` has only the value.
      let thrown = exception["exception"] as? [String: Any]
      let text = thrown?["description"] as? String ?? thrown?["value"].map { "\($0)" } ?? "\(exception)"
      throw Failure(description: "the page threw: \(text)")
    }
    return (result["result"] as? [String: Any])?["value"]
  }

  /// The page as it shows now, PNG.
  func screenshot() throws -> Data {
    let result = try call("Page.captureScreenshot", ["format": "png"])
    guard let text = result["data"] as? String, let data = Data(base64Encoded: text) else {
      throw Failure(description: "no screenshot in \(result.keys)")
    }
    return data
  }

  /// Returns once `condition` holds, asking again every quarter second.
  /// - Throws: `Failure` when it still does not hold after `timeout`, or what `condition` threw.
  func waitUntil(timeout: TimeInterval, _ what: String = "the condition", _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
      guard Date() < deadline else { throw Failure(description: "\(what) did not hold within \(timeout) s") }
      usleep(250_000)
    }
  }

  /// Sends one command and waits for its answer, passing over events.
  private func call(_ method: String, _ parameters: [String: Any]) throws -> [String: Any] {
    nextID += 1
    let id = nextID
    let command = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": parameters])
    try socket.sendText(String(decoding: command, as: UTF8.self))
    let deadline = Date().addingTimeInterval(20)
    while true {
      guard case .text(let text) = try socket.readMessage(deadline: deadline) else { continue }
      guard let answer = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
        answer["id"] as? Int == id
      else { continue }
      if let error = answer["error"] as? [String: Any] { throw Failure(description: "\(method): \(error)") }
      return answer["result"] as? [String: Any] ?? [:]
    }
  }

  /// Ends the browser and removes its profile.
  func close() {
    guard !closed else { return }
    closed = true
    socket.close()
    Self.end(process, group: group, profile: profile)
    errors.fileHandleForReading.readabilityHandler = nil
  }

  /// Asks the browser to quit, kills it after 2 s, then kills what is left of its group
  /// (a helper that outlived it would go on running after the test, in a profile that
  /// is being removed).
  private static func end(_ process: Process, group: pid_t?, profile: String) {
    let pid = process.processIdentifier
    func signal(_ number: Int32) { _ = group.map { kill(-$0, number) } ?? kill(pid, number) }
    if process.isRunning {
      signal(SIGTERM)
      let deadline = Date().addingTimeInterval(2)
      while process.isRunning, Date() < deadline { usleep(20_000) }
      if process.isRunning { signal(SIGKILL) }
      process.waitUntilExit()
    }
    if let group { kill(-group, SIGKILL) }
    try? FileManager.default.removeItem(atPath: profile)
  }
}
