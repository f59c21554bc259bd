import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The preview web server (`camfx record --preview 127.0.0.1:8080`), on SwiftNIO, for
/// one camera or several (a job's cameras and its mosaic). With one camera:
///
///     /                 a page with the live picture and live figures (plain HTML, a little script)
///     /stream.mjpeg     multipart MJPEG of the filtered frames, at most the tap's frames per second
///     /snapshot.jpg     the next filtered frame at full size, as JPEG
///     /snapshot.png     ... as PNG (colours exact)
///     /state            the figures as JSON (ustreamer's /state is the model)
///     POST /event       start an event clip (`?duration=3s`); POST /event/stop ends it
///
/// With several, `/` is a page of every camera (a snapshot that refreshes, its name and
/// its figures, whether its signal is live or lost), `/state` is every camera's figures
/// by name (`{"cameras": {"front": {...}, "mosaic": {...}}}`), and each camera has the
/// paths above under its name:
///
///     /cameras                       the names, as JSON: {"cameras": ["front", "mosaic"]}
///     /cameras/NAME/                 the one-camera page, for that camera
///     /cameras/NAME/stream.mjpeg     /cameras/NAME/snapshot.jpg     /cameras/NAME/snapshot.png
///     /cameras/NAME/state            POST /cameras/NAME/event       POST /cameras/NAME/event/stop
///     /metrics                       every camera's figures for Prometheus (`camera` label)
///
/// The `/cameras/...` paths answer with one camera too; the one-camera paths answer 404
/// with several, saying where to ask instead. An unknown name is 404.
///
/// Anything else is 404; the server reads no files. At most `maximumClients`
/// viewers of the MJPEG streams at once, all cameras together (the next one gets 503);
/// every other request is answered whatever the number of viewers, so `/state` always
/// works. A connection that has not sent a complete request within `requestTimeout` (a
/// new one, or one kept alive after an answer) is closed, so idle sockets cannot take
/// the server's places. With `credentials`, HTTP Basic authentication on every path. A
/// viewer that reads slowly gets fewer frames: each viewer has at most one frame in
/// flight, and frames that find it busy are skipped, so it never holds up the pipeline
/// or the other viewers.
public final class PreviewServer: @unchecked Sendable {
  // @unchecked Sendable: `channel` is set once by `start()` before anything reads it;
  // the viewer list is under a Mutex; each viewer's state lives on its event loop.

  public let address: PreviewAddress
  public let maximumClients: Int
  /// How long a connection may take to send a complete request.
  public let requestTimeout: TimeAmount
  /// Connections beyond this many are closed at once (each holds a descriptor until its
  /// request timeout).
  let maximumConnections: Int
  /// In the order the page lists them.
  public let cameras: [PreviewCamera]
  let credentials: String?
  /// TLS below HTTP, or nil for plain HTTP.
  let transport: (any PreviewTransport)?
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private var channel: (any Channel)?
  let connections = Atomic<Int>(0)
  /// The MJPEG streams' viewers, and how many live views are open: together at most
  /// `maximumClients`.
  private struct Viewers {
    var mjpeg: [ObjectIdentifier: MJPEGViewer] = [:]
    var live = 0
    var count: Int { mjpeg.count + live }
  }
  private let viewers = Mutex(Viewers())
  static let boundary = "camfxframe"

  /// - Parameters:
  ///   - cameras: what to show, in the page's order; with one, the server answers on
  ///     the one-camera paths as well.
  ///   - credentials: `USER:PASS` for HTTP Basic, or nil for none.
  ///   - transport: TLS (HTTPS and WSS), or nil for plain HTTP.
  /// - Throws: `PreviewError` for no camera, or two with one name.
  public init(
    address: PreviewAddress, cameras: [PreviewCamera], credentials: String? = nil, transport: (any PreviewTransport)? = nil,
    maximumClients: Int = 16, requestTimeout: TimeAmount = .seconds(5)
  ) throws(PreviewError) {
    guard !cameras.isEmpty else { throw PreviewError("a preview needs a camera to show") }
    var seen = Set<String>()
    for camera in cameras where !seen.insert(camera.name).inserted {
      throw PreviewError("two preview cameras are named '\(camera.name)'")
    }
    self.address = address
    self.cameras = cameras
    self.credentials = credentials.map { Data($0.utf8).base64EncodedString() }
    self.transport = transport
    self.maximumClients = maximumClients
    self.requestTimeout = requestTimeout
    maximumConnections = 4 * maximumClients + 64
    for (index, camera) in cameras.enumerated() {
      camera.tap.onJPEG = { [weak self] jpeg in self?.broadcast(jpeg, camera: index) }
    }
  }

  /// The camera named `name`, by its place in `cameras`.
  func camera(named name: Substring) -> Int? { cameras.firstIndex { $0.name == name } }

  /// Every camera's figures by name, in the cameras' order:
  /// `{"cameras": {"front": {...}, "mosaic": {...}}}`.
  func allStates() -> [UInt8] {
    var json = Array(#"{"cameras":{"#.utf8)
    for (index, camera) in cameras.enumerated() {
      if index > 0 { json.append(UInt8(ascii: ",")) }
      // A valid name needs no escaping in JSON (`PreviewCamera.isValid`).
      json += Array("\"\(camera.name)\":".utf8)
      json += camera.state()
    }
    json += Array("}}\n".utf8)
    return json
  }

  /// The cameras' names: `{"cameras": ["front", "mosaic"]}`.
  func cameraList() -> [UInt8] {
    Array((#"{"cameras":["# + cameras.map { "\"\($0.name)\"" }.joined(separator: ",") + "]}\n").utf8)
  }

  /// `/metrics`: every camera's figures and the server's own, in Prometheus's text format.
  func metricsText() -> [UInt8] {
    var families = MetricFamilies()
    for camera in cameras { camera.metrics?(&families) }
    families.add(
      "camfx_preview_cameras", .gauge, help: "Cameras the preview server shows.", value: Double(cameras.count))
    return Array(families.text.utf8)
  }

  /// Binds the address and starts serving.
  /// - Throws: `PreviewError` naming the address (in use, not local, ...).
  public func start() throws(PreviewError) {
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(ChannelOptions.backlog, value: 32)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 512 * 1024))
      .childChannelInitializer { [self] channel in
        channel.eventLoop.makeCompletedFuture {
          try transport?.addHandlers(to: channel)
          let upgrade: NIOHTTPServerUpgradeConfiguration = (
            upgraders: [liveUpgrader()],
            completionHandler: { context in
              context.pipeline.syncOperations.removeHandler(name: PreviewHTTPHandler.name, promise: nil)
            }
          )
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: upgrade, withErrorHandling: true)
          try channel.pipeline.syncOperations.addHandler(PreviewHTTPHandler(server: self), name: PreviewHTTPHandler.name)
        }
      }
    do {
      channel = try bootstrap.bind(host: address.host, port: address.port).wait()
    } catch {
      try? group.syncShutdownGracefully()
      throw PreviewError("cannot serve the preview on \(address): \(Self.reason(error))")
    }
  }

  /// The port it listens on (the one the system chose for port 0).
  public var port: Int { channel?.localAddress?.port ?? address.port }

  /// The page's address, as a user opens it.
  public var url: String {
    let host = address.host.contains(":") ? "[\(address.host)]" : address.host
    return "\(scheme)://\(host):\(port)/"
  }

  /// Stops listening and closes every connection.
  public func stop() {
    try? channel?.close().wait()
    try? group.syncShutdownGracefully()
  }

  private static func reason(_ error: any Error) -> String {
    if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
    return "\(error)"
  }

  /// True when `header` (an Authorization value) carries the credentials, or none are needed.
  func isAuthorized(_ header: String?) -> Bool {
    guard let credentials else { return true }
    guard let header, header.hasPrefix("Basic ") else { return false }
    return header.dropFirst(6).trimmingCharacters(in: .whitespaces) == credentials
  }

  // MARK: MJPEG viewers

  /// Adds a viewer unless `maximumClients` are watching already, of any camera.
  func add(_ viewer: MJPEGViewer) -> Bool {
    let added = viewers.withLock { viewers in
      guard viewers.count < maximumClients else { return false }
      viewers.mjpeg[ObjectIdentifier(viewer)] = viewer
      return true
    }
    if added { cameras[viewer.camera].tap.viewerJoined() }
    return added
  }

  /// True when the preview can be reached from other machines without credentials.
  public var isOpenToTheNetwork: Bool {
    guard credentials == nil else { return false }
    let host = address.host.lowercased()
    return !(host.hasPrefix("127.") || host == "::1" || host == "localhost")
  }

  func remove(_ viewer: MJPEGViewer) {
    let removed = viewers.withLock { $0.mjpeg.removeValue(forKey: ObjectIdentifier(viewer)) != nil }
    if removed { cameras[viewer.camera].tap.viewerLeft() }
  }

  /// True while a viewer place is free.
  var hasViewerPlace: Bool { viewers.withLock { $0.count < maximumClients } }

  /// Takes a place for a live viewer, unless `maximumClients` are watching already.
  func reserveLiveViewer() -> Bool {
    viewers.withLock { viewers in
      guard viewers.count < maximumClients else { return false }
      viewers.live += 1
      return true
    }
  }

  func liveViewerLeft() { viewers.withLock { $0.live -= 1 } }

  /// True when a request with `headers` comes from this server's own page, or from no
  /// page at all (a browser sends `Origin` with every POST and WebSocket; a page
  /// elsewhere must neither fire events nor watch through a viewer's credentials).
  func isFromOwnPage(_ headers: HTTPHeaders) -> Bool {
    guard let origin = headers.first(name: "Origin") else { return true }
    return origin == "\(scheme)://\(headers.first(name: "Host") ?? "")"
  }

  /// `https` with TLS, else `http`.
  public var scheme: String { transport?.scheme ?? "http" }

  /// Why `head` may not open a live view's WebSocket, as the status and one line the
  /// answer carries; nil when it may (`camera`: the camera it is for).
  func liveRefusal(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String)? {
    let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
    guard case .resource(.liveSocket, let name)? = PreviewRequestPath(path) else { return (.notFound, "not found") }
    guard let camera = liveCamera(name) else {
      return (.notFound, cameras.count > 1 && name == nil ? "ask /cameras/NAME/live/ws" : "no such camera")
    }
    guard isAuthorized(head.headers.first(name: "Authorization")) else { return (.unauthorized, "authorization required") }
    guard isFromOwnPage(head.headers) else { return (.forbidden, "the live view opens from this server's own page only") }
    guard let view = cameras[camera].live else { return (.notFound, "this camera has no live view") }
    if let refusal = view.refusal { return (.notFound, refusal) }
    guard hasViewerPlace else { return (.serviceUnavailable, "too many preview viewers (at most \(maximumClients))") }
    return nil
  }

  /// The camera a live path names (nil: on a one-camera path).
  private func liveCamera(_ name: Substring?) -> Int? {
    guard let name else { return cameras.count == 1 ? 0 : nil }
    return camera(named: name)
  }

  /// The WebSocket upgrade of `live/ws`: allowed when `liveRefusal` finds nothing (else
  /// the request goes on to `PreviewHTTPHandler`, which answers with the reason).
  private func liveUpgrader() -> NIOWebSocketServerUpgrader {
    NIOWebSocketServerUpgrader(
      maxFrameSize: 1 << 16,
      shouldUpgrade: { [self] channel, head in
        channel.eventLoop.makeSucceededFuture(liveRefusal(head) == nil ? HTTPHeaders() : nil)
      },
      upgradePipelineHandler: { [self] channel, head in
        let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
        guard case .resource(.liveSocket, let name)? = PreviewRequestPath(path), let camera = liveCamera(name),
          let view = cameras[camera].live, reserveLiveViewer()
        else {
          // Full since the check: "try again later". No handler of this connection
          // is left to count its end.
          connections.subtract(1, ordering: .relaxed)
          var code = channel.allocator.buffer(capacity: 2)
          code.writeInteger(UInt16(1013))
          return channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)).flatMap {
            channel.close()
          }
        }
        let viewer = LiveViewer(channel: channel, view: view)
        let handler = LiveWebSocketHandler(server: self, view: view, viewer: viewer)
        // A small send buffer keeps a slow viewer's lag in sight, in the viewer's own
        // count of what is in flight: the kernel's autotuned one holds many seconds of
        // video (the kernel doubles it: 128 KiB still carries 10 Mbit/s at 100 ms).
        return channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: 64 * 1024).flatMap {
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(handler)
            do {
              try view.join(viewer)
            } catch {
              viewer.send(text: #"{"type":"error","message":"\#("\(error)".replacingOccurrences(of: "\"", with: "'"))"}"#)
              channel.close(promise: nil)
            }
          }
        }
      })
  }

  /// Sends one JPEG of camera number `camera` to each of its viewers that is ready for it.
  private func broadcast(_ jpeg: [UInt8], camera: Int) {
    let current = viewers.withLock { $0.mjpeg.values.filter { $0.camera == camera } }
    guard !current.isEmpty else { return }
    var part = ByteBufferAllocator().buffer(capacity: jpeg.count + 128)
    part.writeString("--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n")
    part.writeBytes(jpeg)
    part.writeString("\r\n")
    for viewer in current { viewer.offer(part) }
  }
}

/// One `stream.mjpeg` connection, of one camera. `busy` and `skipped` are only touched
/// on its channel's event loop.
final class MJPEGViewer: @unchecked Sendable {
  let channel: any Channel
  /// Its place in the server's `cameras`.
  let camera: Int
  private var busy = false
  private(set) var sent = 0
  private(set) var skipped = 0

  init(channel: any Channel, camera: Int) {
    self.channel = channel
    self.camera = camera
  }

  func offer(_ part: ByteBuffer) {
    channel.eventLoop.execute { [self] in
      guard !busy, channel.isActive, channel.isWritable else {
        skipped += 1
        return
      }
      busy = true
      channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(part))).whenComplete { [self] _ in
        busy = false
        sent += 1
      }
    }
  }
}

/// Where the preview listens: `127.0.0.1:8080`, `8080` (loopback), `0.0.0.0:8080`,
/// `[::1]:8080`.
public struct PreviewAddress: Sendable, Equatable, CustomStringConvertible {
  public let host: String
  public let port: Int

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// - Throws: `PreviewError` naming the value.
  public init(parsing text: String) throws(PreviewError) {
    let bad = PreviewError("invalid preview address '\(text)' (expected PORT or HOST:PORT, e.g. 127.0.0.1:8080)")
    var host = "127.0.0.1"
    var portText = Substring(text)
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { throw bad }
      host = String(text[text.index(after: text.startIndex)..<close])
      portText = text[text.index(close, offsetBy: 2)...]
    } else if let colon = text.lastIndex(of: ":") {
      host = String(text[..<colon])
      portText = text[text.index(after: colon)...]
      guard !host.isEmpty, !host.contains(":") else { throw bad }
    }
    guard let port = Int(portText), (0...65535).contains(port) else { throw bad }
    self.host = host
    self.port = port
  }

  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What a `POST /event` asks for.
public enum EventRequest: Sendable, Equatable {
  /// Start or extend an event; it lasts `duration` seconds (nil: an instant) before its
  /// post-roll.
  case start(duration: Double?)
  /// End the open event at its post-roll from now.
  case stop

  /// `3`, `3s`, `1.5s` or `2m` as seconds (0 to a day).
  static func seconds(_ text: String) -> Double? {
    var t = text
    var scale = 1.0
    if t.hasSuffix("ms") {
      scale = 0.001
      t.removeLast(2)
    } else if t.hasSuffix("s") {
      t.removeLast()
    } else if t.hasSuffix("m") {
      scale = 60
      t.removeLast()
    }
    guard let value = Double(t), value.isFinite, value >= 0, value * scale <= 86_400 else { return nil }
    return value * scale
  }
}
