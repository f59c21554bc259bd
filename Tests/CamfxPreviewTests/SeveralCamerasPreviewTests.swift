import Camfx
import CamfxPNG
import CamfxPreview
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// One preview server for several pipelines, started as the CLI starts it
/// (`PipelinePreview`), the pipelines run together (`RecordingGroup`): each camera's
/// snapshots are its own picture, decoded; `/state` has every camera, moving; the page
/// lists them; a camera that stops shows it.
final class SeveralCamerasPreviewTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-preview-cameras-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  private static let red = BGRA(r: 220, g: 20, b: 20)
  private static let blue = BGRA(r: 20, g: 20, b: 220)

  /// A live camera showing one colour (a PNG played on the wall clock).
  private func camera(_ name: String, _ color: BGRA) throws -> RecordingPipeline {
    let picture = PixelBuffer(width: 160, height: 120)
    picture.fill(color)
    try PNGFile.write(picture, to: path("\(name).png"), alpha: false)
    var configuration = RecordingPipeline.Configuration(source: .live(.image(path: path("\(name).png"))))
    configuration.limits.duration = MediaTime(value: 60, timescale: 1)  // a test that fails still ends
    return try RecordingPipeline(configuration)
  }

  /// The red and blue cameras, and their hstack mosaic when `mosaic`.
  private func makeCameras(mosaic: Bool) throws -> [(name: String, pipeline: RecordingPipeline)] {
    let red = try camera("red", Self.red)
    let blue = try camera("blue", Self.blue)
    guard mosaic else { return [("red", red), ("blue", blue)] }
    let source = try MosaicSource(
      layout: MosaicLayout(parsing: "hstack", cameras: ["red", "blue"]), cameras: ["red", "blue"],
      size: FrameGeometry(width: 320, height: 120), framesPerSecond: 30)
    for (name, pipeline) in [("red", red), ("blue", blue)] {
      pipeline.addTap(try MosaicFeed(camera: name, into: source.mosaic, geometry: pipeline.outputGeometry))
    }
    var configuration = RecordingPipeline.Configuration(source: .own(source))
    configuration.limits.duration = MediaTime(value: 60, timescale: 1)
    return [("red", red), ("blue", blue), ("mosaic", try RecordingPipeline(configuration))]
  }

  /// Runs the pipelines as one job on a thread of its own until `stop`.
  private final class RunningGroup: @unchecked Sendable {
    // @unchecked Sendable: the group is itself Sendable; `ended` is a semaphore.
    let group: RecordingGroup
    private let ended = DispatchSemaphore(value: 0)

    init(_ cameras: [(name: String, pipeline: RecordingPipeline)]) {
      group = RecordingGroup(cameras.map { RecordingGroup.Member(name: $0.name, pipeline: $0.pipeline) })
      Thread { [self] in
        _ = group.runAll()
        ended.signal()
      }.start()
    }

    func stop() {
      group.stop()
      XCTAssertEqual(ended.wait(timeout: .now() + 30), .success, "the pipelines ended")
    }
  }

  /// The figures of `/state`, by camera.
  private func states(_ port: Int) throws -> [String: [String: Any]] {
    let answer = try PreviewClient.request(port: port, path: "/state")
    XCTAssertEqual(answer.status, 200)
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
    return try XCTUnwrap(json["cameras"] as? [String: [String: Any]], "\(json)")
  }

  /// Waits until every camera has written `frames` frames.
  private func waitForFrames(_ port: Int, names: [String], frames: Int = 5) throws {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      let states = try self.states(port)
      if names.allSatisfy({ (states[$0]?["frames"] as? Int ?? 0) >= frames }) { return }
      usleep(100_000)
    }
    XCTFail("the cameras never all sent frames: \(try states(port))")
  }

  /// A served PNG, decoded.
  private func decode(_ png: Data) throws -> PixelBuffer {
    let file = path("snapshot-\(UUID().uuidString).png")
    try png.write(to: URL(fileURLWithPath: file))
    return try PNGFile.read(path: file)
  }

  private func assertColor(
    _ actual: BGRA, _ expected: BGRA, tolerance: Int = 24, _ message: String, line: UInt = #line
  ) {
    let distance = abs(Int(actual.r) - Int(expected.r)) + abs(Int(actual.g) - Int(expected.g))
      + abs(Int(actual.b) - Int(expected.b))
    XCTAssertLessThanOrEqual(distance, tolerance, "\(message): \(actual)", line: line)
  }

  func testEachCameraServesItsOwnPictureAndStateOnOneServer() throws {
    let cameras = try makeCameras(mosaic: true)
    let preview = try PipelinePreview(address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: cameras)
    defer { preview.stop() }
    let port = preview.server.port
    let running = RunningGroup(cameras)
    try waitForFrames(port, names: ["red", "blue", "mosaic"])

    // Each camera's snapshot is its own picture; the mosaic's holds both, side by side.
    for (name, color) in [("red", Self.red), ("blue", Self.blue)] {
      let png = try PreviewClient.request(port: port, path: "/cameras/\(name)/snapshot.png")
      XCTAssertEqual(png.status, 200, name)
      XCTAssertTrue(png.head.contains("Content-Type: image/png"), png.head)
      let picture = try decode(png.body)
      XCTAssertEqual([picture.width, picture.height], [160, 120])
      for (x, y) in [(0, 0), (80, 60), (159, 119)] { assertColor(picture[x, y], color, "\(name) at \(x),\(y)") }
      let jpeg = try PreviewClient.request(port: port, path: "/cameras/\(name)/snapshot.jpg?t=123")
      XCTAssertEqual(jpeg.status, 200, name)
      XCTAssertTrue(jpeg.head.contains("Content-Type: image/jpeg"), jpeg.head)
      XCTAssertEqual(Array(jpeg.body.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
    }
    let mosaic = try decode(try PreviewClient.request(port: port, path: "/cameras/mosaic/snapshot.png").body)
    XCTAssertEqual([mosaic.width, mosaic.height], [320, 120])
    assertColor(mosaic[80, 60], Self.red, "the mosaic's left half")
    assertColor(mosaic[240, 60], Self.blue, "the mosaic's right half")

    // A camera's stream is that camera's.
    let stream = try PreviewClient.request(port: port, path: "/cameras/blue/stream.mjpeg", seconds: 1.5)
    XCTAssertEqual(stream.status, 200)
    XCTAssertTrue(stream.head.contains("multipart/x-mixed-replace; boundary=camfxframe"), stream.head)
    XCTAssertGreaterThan(PreviewClient.jpegParts(stream.body).count, 5)

    // `/state`: every camera, by name, with frame counts that move and a live signal.
    let first = try states(port)
    XCTAssertEqual(Set(first.keys), ["red", "blue", "mosaic"])
    usleep(1_000_000)
    let second = try states(port)
    for name in ["red", "blue", "mosaic"] {
      let before = try XCTUnwrap(first[name]?["frames"] as? Int), after = try XCTUnwrap(second[name]?["frames"] as? Int)
      // (How far in a second depends on how busy the cores are: moving is the point.)
      XCTAssertGreaterThan(after, before, "\(name) moves: \(before) → \(after)")
      XCTAssertEqual(second[name]?["signal"] as? String, "live", name)
      let one = try PreviewClient.request(port: port, path: "/cameras/\(name)/state")
      XCTAssertEqual(one.status, 200)
      let figures = try XCTUnwrap(JSONSerialization.jsonObject(with: one.body) as? [String: Any])
      XCTAssertGreaterThanOrEqual(figures["frames"] as? Int ?? 0, after, name)
    }

    let list = try PreviewClient.request(port: port, path: "/cameras")
    XCTAssertEqual(list.status, 200)
    XCTAssertEqual(String(decoding: list.body, as: UTF8.self), #"{"cameras":["red","blue","mosaic"]}"# + "\n")

    // The page lists each camera, its picture and its own page.
    let page = try PreviewClient.request(port: port, path: "/")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.head.contains("Content-Type: text/html; charset=utf-8"), page.head)
    let html = String(decoding: page.body, as: UTF8.self)
    for name in ["red", "blue", "mosaic"] {
      XCTAssertTrue(html.contains(#"<figure class="camera" data-name="\#(name)">"#), name)
      XCTAssertTrue(html.contains(#"<a class="name" href="/cameras/\#(name)/">\#(name)</a>"#), name)
    }
    XCTAssertTrue(html.contains("'snapshot.jpg'"), "the pictures are snapshots")
    let own = try PreviewClient.request(port: port, path: "/cameras/blue/")
    XCTAssertEqual(own.status, 200)
    XCTAssertTrue(String(decoding: own.body, as: UTF8.self).contains("const base = '/cameras/blue/';"))

    // What is not there, said whole.
    let notFound: [(String, String, String)] = [
      ("GET", "/cameras/green/snapshot.png", "no camera named 'green' (the names are at /cameras)\n"),
      ("GET", "/cameras/a%20b/state", "not found\n"),
      ("GET", "/cameras/red/nothing", "not found\n"),
      ("GET", "/snapshot.png", "this preview shows several cameras: ask /cameras/NAME/snapshot.png (the names are at /cameras)\n"),
      ("GET", "/stream.mjpeg", "this preview shows several cameras: ask /cameras/NAME/stream.mjpeg (the names are at /cameras)\n"),
      ("POST", "/event", "this preview shows several cameras: ask /cameras/NAME/event (the names are at /cameras)\n"),
      ("POST", "/cameras/red/event", "this recording takes no events (add --pre-record)\n"),
      ("GET", "/cameras/red/event", "not found\n"),
      ("POST", "/cameras/red/state", "not found\n"),
    ]
    for (method, path, text) in notFound {
      let answer = try PreviewClient.request(port: port, path: path, method: method)
      XCTAssertEqual(answer.status, 404, "\(method) \(path)")
      XCTAssertEqual(String(decoding: answer.body, as: UTF8.self), text, "\(method) \(path)")
    }

    // A camera that stops sending shows it; the others, the mosaic included, go on.
    cameras[1].pipeline.stop()
    usleep(2_600_000)
    // (Its last frames may still be on their way through the rings on a busy machine.)
    var later = try states(port)
    let lost = Date().addingTimeInterval(10)
    while later["blue"]?["signal"] as? String != "lost", Date() < lost {
      usleep(100_000)
      later = try states(port)
    }
    XCTAssertEqual(later["blue"]?["signal"] as? String, "lost", "\(later["blue"] ?? [:])")
    XCTAssertGreaterThan(later["blue"]?["seconds_since_last_frame"] as? Double ?? 0, 2)
    XCTAssertEqual(later["blue"]?["fps"] as? Double, 0, "no rate without a signal")
    XCTAssertEqual(later["red"]?["signal"] as? String, "live")
    XCTAssertEqual(later["mosaic"]?["signal"] as? String, "live")
    running.stop()
  }

  func testOneCameraKeepsItsPathsAndAnswersUnderItsNameToo() throws {
    let red = try camera("red", Self.red)
    let preview = try PipelinePreview(address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: [("front", red)])
    defer { preview.stop() }
    let port = preview.server.port
    let running = RunningGroup([("front", red)])
    let deadline = Date().addingTimeInterval(20)
    var figures: [String: Any] = [:]
    while Date() < deadline, figures["frames"] as? Int ?? 0 < 5 {
      let answer = try PreviewClient.request(port: port, path: "/state")
      figures = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
      usleep(100_000)
    }
    XCTAssertEqual(figures["signal"] as? String, "live", "the one camera's figures, as they were: \(figures)")
    for path in ["/snapshot.png", "/cameras/front/snapshot.png"] {
      let png = try PreviewClient.request(port: port, path: path)
      XCTAssertEqual(png.status, 200, path)
      assertColor(try decode(png.body)[80, 60], Self.red, path)
    }
    let page = String(decoding: try PreviewClient.request(port: port, path: "/").body, as: UTF8.self)
    XCTAssertTrue(page.contains("const base = '/';"), "the one-camera page")
    XCTAssertEqual(
      String(decoding: try PreviewClient.request(port: port, path: "/cameras").body, as: UTF8.self),
      #"{"cameras":["front"]}"# + "\n")
    running.stop()
  }

  func testNamesAreCheckedAndUnique() throws {
    let tap = PreviewTap(geometry: FrameGeometry(width: 16, height: 16), framesPerSecond: 5)
    for name in ["", "front door", "..", "a/b", "<b>", String(repeating: "x", count: 65)] {
      XCTAssertThrowsError(try PreviewCamera(name: name, tap: tap) { [] }, name) { error in
        XCTAssertEqual(
          error as? PreviewError,
          PreviewError("invalid preview camera name '\(name)' (1 to 64 letters, digits, '-', '_' or '.', not only dots)"))
      }
    }
    for name in ["front", "cam-2", "door_1.left", "A"] { XCTAssertNoThrow(try PreviewCamera(name: name, tap: tap) { [] }) }
    let front = try PreviewCamera(name: "front", tap: tap) { [] }
    let address = PreviewAddress(host: "127.0.0.1", port: 0)
    XCTAssertThrowsError(try PreviewServer(address: address, cameras: [front, front])) { error in
      XCTAssertEqual(error as? PreviewError, PreviewError("two preview cameras are named 'front'"))
    }
    XCTAssertThrowsError(try PreviewServer(address: address, cameras: [])) { error in
      XCTAssertEqual(error as? PreviewError, PreviewError("a preview needs a camera to show"))
    }
  }

  /// `POST /cameras/NAME/event` reaches that camera's events and no other's; a camera
  /// without events says so; another origin's page is refused, as on one camera.
  func testEventsGoToTheCameraNamed() throws {
    let asked = EventLog()
    let geometry = FrameGeometry(width: 16, height: 16)
    let cameras = try ["front", "back"].map { name in
      try PreviewCamera(name: name, tap: PreviewTap(geometry: geometry, framesPerSecond: 5), events: { asked.add(name, $0) }) {
        Array("{}".utf8)
      }
    } + [try PreviewCamera(name: "mosaic", tap: PreviewTap(geometry: geometry, framesPerSecond: 5)) { Array("{}".utf8) }]
    let server = try PreviewServer(address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: cameras)
    try server.start()
    defer { server.stop() }
    let port = server.port
    let answers: [(String, Int, String)] = [
      ("/cameras/back/event?duration=2s", 200, #"{"event":"started"}"# + "\n"),
      ("/cameras/front/event", 200, #"{"event":"started"}"# + "\n"),
      ("/cameras/back/event/stop", 200, #"{"event":"stopping"}"# + "\n"),
      ("/cameras/front/event?duration=soon", 400, "invalid duration 'soon' (expected seconds, e.g. 3 or 3s)\n"),
      ("/cameras/mosaic/event", 404, "this recording takes no events (add --pre-record)\n"),
    ]
    for (path, status, text) in answers {
      let answer = try PreviewClient.request(port: port, path: path, method: "POST")
      XCTAssertEqual(answer.status, status, path)
      XCTAssertEqual(String(decoding: answer.body, as: UTF8.self), text, path)
    }
    let foreign = try PreviewClient.request(
      port: port, path: "/cameras/front/event", method: "POST", headers: ["Origin: http://elsewhere.example"])
    XCTAssertEqual(foreign.status, 403)
    XCTAssertEqual(String(decoding: foreign.body, as: UTF8.self), "events come from this server's own page only\n")
    XCTAssertEqual(asked.entries, ["back: start 2.0", "front: start none", "back: stop"])
  }

  /// The viewer cap is the server's, whatever camera the viewers watch.
  func testTheViewerCapCountsEveryCamerasViewers() throws {
    let geometry = FrameGeometry(width: 16, height: 16)
    let cameras = try ["front", "back", "mosaic"].map { name in
      try PreviewCamera(name: name, tap: PreviewTap(geometry: geometry, framesPerSecond: 5)) { Array("{}".utf8) }
    }
    let server = try PreviewServer(address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: cameras, maximumClients: 2)
    try server.start()
    defer { server.stop() }
    let watching = try ["front", "back"].map { try PreviewClient.open(port: server.port, path: "/cameras/\($0)/stream.mjpeg") }
    defer { watching.forEach { close($0) } }
    // Each is counted once its stream's head has come.
    for fd in watching {
      var buffer = [UInt8](repeating: 0, count: 512)
      XCTAssertGreaterThan(recv(fd, &buffer, buffer.count, 0), 0, "the stream started")
    }
    let refused = try PreviewClient.request(port: server.port, path: "/cameras/mosaic/stream.mjpeg")
    XCTAssertEqual(refused.status, 503)
    XCTAssertEqual(String(decoding: refused.body, as: UTF8.self), "too many preview viewers (at most 2)\n")
    XCTAssertEqual(try PreviewClient.request(port: server.port, path: "/state").status, 200, "/state at the cap")
  }

  /// One set of credentials guards every path of every camera.
  func testCredentialsAreAskedForOnEveryCamerasPaths() throws {
    let geometry = FrameGeometry(width: 16, height: 16)
    let cameras = try ["front", "back"].map { name in
      try PreviewCamera(name: name, tap: PreviewTap(geometry: geometry, framesPerSecond: 5)) { Array("{}".utf8) }
    }
    let server = try PreviewServer(
      address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: cameras, credentials: "cam:secret")
    try server.start()
    defer { server.stop() }
    let paths = ["/", "/state", "/cameras", "/cameras/back/", "/cameras/back/state", "/cameras/back/snapshot.png",
      "/cameras/back/stream.mjpeg", "/cameras/nobody/state"]
    for path in paths {
      let refused = try PreviewClient.request(port: server.port, path: path)
      XCTAssertEqual(refused.status, 401, path)
      XCTAssertTrue(refused.head.contains("WWW-Authenticate: Basic"), refused.head)
    }
    let allowed = try PreviewClient.request(
      port: server.port, path: "/cameras/back/state", headers: ["Authorization: Basic Y2FtOnNlY3JldA=="])
    XCTAssertEqual(allowed.status, 200)
    XCTAssertEqual(String(decoding: allowed.body, as: UTF8.self), "{}")
  }

  /// Headless Chromium loads the page of two cameras: each camera's snapshot shows, red
  /// first and blue beside it, as the page lists them, each marked live; once the blue
  /// camera has stopped, the page marks it as without signal and the red one goes on.
  func testAHeadlessBrowserShowsEveryCamerasSnapshotAndSignal() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
      throw XCTSkip("chromium is not installed (bash scripts/setup.sh --test installs it)")
    }
    let cameras = try makeCameras(mosaic: false)
    let preview = try PipelinePreview(address: PreviewAddress(host: "127.0.0.1", port: 0), cameras: cameras)
    defer { preview.stop() }
    let port = preview.server.port
    let running = RunningGroup(cameras)
    defer { running.stop() }
    try waitForFrames(port, names: ["red", "blue"])
    func screenshot(_ name: String) throws -> PixelBuffer {
      // Chromium has been seen to exit 0 without its screenshot once (PreviewTests): a
      // second try, each on a profile of its own.
      let file = path(name)
      var said = ""
      for attempt in 1...2 where !FileManager.default.fileExists(atPath: file) {
        said += try PreviewClient.run("/usr/bin/chromium", [
          "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=800,600",
          "--virtual-time-budget=3000", "--user-data-dir=\(path("chromium-\(name)-\(attempt)"))",
          "--screenshot=\(file)", "http://127.0.0.1:\(port)/",
        ])
      }
      XCTAssertTrue(FileManager.default.fileExists(atPath: file), "chromium wrote no \(name): \(said)")
      let page = try PNGFile.read(path: file)
      XCTAssertEqual([page.width, page.height], [800, 600], said)
      return page
    }
    /// Pixels within 30 of `color` in the columns `x` and rows `y`.
    func count(_ page: PixelBuffer, _ color: BGRA, x: Range<Int>, y: Range<Int>) -> Int {
      var n = 0
      for row in y {
        for column in x {
          let p = page[column, row]
          if abs(Int(p.r) - Int(color.r)) + abs(Int(p.g) - Int(color.g)) + abs(Int(p.b) - Int(color.b)) <= 30 { n += 1 }
        }
      }
      return n
    }
    // The pictures are 360 px wide (270 high for 4:3), from 12 px in, 12 px apart; the
    // captions under them, each with its signal's badge (green live, red lost).
    let (left, right) = (12..<372, 384..<744)
    let pictures = 12..<282, captions = 282..<320
    let live = BGRA(r: 0x1d, g: 0x6b, b: 0x2c), lost = BGRA(r: 0xa0, g: 0x18, b: 0x18)
    let first = try screenshot("first.png")
    XCTAssertGreaterThan(count(first, Self.red, x: left, y: pictures), 360 * 270 * 9 / 10, "the red camera's snapshot")
    XCTAssertGreaterThan(count(first, Self.blue, x: right, y: pictures), 360 * 270 * 9 / 10, "the blue camera's snapshot")
    XCTAssertGreaterThan(count(first, live, x: left, y: captions), 200, "the red camera is live")
    XCTAssertGreaterThan(count(first, live, x: right, y: captions), 200, "the blue camera is live")

    cameras[1].pipeline.stop()
    usleep(2_600_000)
    let second = try screenshot("second.png")
    XCTAssertGreaterThan(count(second, Self.red, x: left, y: pictures), 360 * 270 * 9 / 10, "the red camera goes on")
    XCTAssertGreaterThan(count(second, live, x: left, y: captions), 200, "the red camera is live")
    XCTAssertEqual(count(second, Self.blue, x: right, y: pictures), 0, "the blue camera has no picture to show")
    XCTAssertGreaterThan(count(second, lost, x: right, y: captions), 200, "the blue camera has no signal")
  }
}

/// A plain HTTP/1.1 client on a socket: whole answers, or a stream read for a while.
enum PreviewClient {
  struct Answer {
    var status: Int
    var head: String
    var body: Data
  }

  static func request(
    port: Int, path: String, method: String = "GET", headers: [String] = [], seconds: Double = 10
  ) throws -> Answer {
    let fd = try open(port: port, path: path, method: method, headers: headers)
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      data.append(contentsOf: buffer[0..<n])
    }
    guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { return Answer(status: 0, head: "", body: data) }
    let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
    let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return Answer(status: status, head: head, body: Data(data[end.upperBound...]))
  }

  /// A connection that has sent its request, for the caller to read and close.
  static func open(port: Int, path: String, method: String = "GET", headers: [String] = []) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PreviewError("socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      close(fd)
      throw PreviewError("connect to \(port): errno \(errno)")
    }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
      + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    return fd
  }

  /// The JPEGs of a multipart MJPEG body, by their Content-Length headers.
  static func jpegParts(_ body: Data) -> [Data] {
    var parts: [Data] = []
    var search = body.startIndex
    let marker = Data("Content-Length: ".utf8)
    while let found = body[search...].firstRange(of: marker) {
      guard let lineEnd = body[found.upperBound...].firstRange(of: Data("\r\n\r\n".utf8)),
        let length = Int(String(decoding: body[found.upperBound..<lineEnd.lowerBound], as: UTF8.self))
      else { break }
      let start = lineEnd.upperBound
      guard start + length <= body.endIndex else { break }
      parts.append(Data(body[start..<start + length]))
      search = start + length
    }
    return parts
  }

  /// Runs a program to its end; what it said on stderr.
  static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let stderr = Pipe()
    process.standardError = stderr
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let said = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: said, as: UTF8.self)
  }
}

/// The event requests the cameras got, in order, as `NAME: start 2.0` or `NAME: stop`.
private final class EventLog: @unchecked Sendable {
  // @unchecked Sendable: `logged` is only touched under `lock`.
  private let lock = NSLock()
  private var logged: [String] = []

  func add(_ camera: String, _ request: EventRequest) {
    let text: String
    switch request {
    case .start(let duration): text = "start \(duration.map { "\($0)" } ?? "none")"
    case .stop: text = "stop"
    }
    lock.withLock { logged.append("\(camera): \(text)") }
  }

  var entries: [String] { lock.withLock { logged } }
}
