import Dispatch
import NIOCore
import NIOHTTP1

/// Answers one connection of the preview server (see `PreviewServer` for the paths).
final class PreviewHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let server: PreviewServer
  private var request: HTTPRequestHead?
  private var viewer: MJPEGViewer?
  /// Closes the connection unless a complete request arrives first.
  private var requestDeadline: Scheduled<Void>?

  /// Its name in the channel's pipeline: a WebSocket upgrade removes it.
  static let name = "camfx.preview.http"

  init(server: PreviewServer) { self.server = server }

  func handlerRemoved(context: ChannelHandlerContext) {
    // Upgraded to a WebSocket: the live view's handler has the connection now.
    requestDeadline?.cancel()
    requestDeadline = nil
  }

  func channelActive(context: ChannelHandlerContext) {
    guard server.connections.add(1, ordering: .relaxed).newValue <= server.maximumConnections else {
      context.close(promise: nil)
      return
    }
    awaitRequest(context: context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    server.connections.subtract(1, ordering: .relaxed)
    requestDeadline?.cancel()
    requestDeadline = nil
    if let viewer { server.remove(viewer) }
    viewer = nil
    context.fireChannelInactive()
  }

  /// Starts the time a client has to send its (next) request.
  private func awaitRequest(context: ChannelHandlerContext) {
    requestDeadline?.cancel()
    let channel = context.channel
    requestDeadline = context.eventLoop.scheduleTask(in: server.requestTimeout) { channel.close(promise: nil) }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head): request = head
    case .body: break
    case .end:
      requestDeadline?.cancel()
      requestDeadline = nil
      guard let head = request else { return }
      request = nil
      respond(to: head, context: context)
    }
  }

  private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
    guard viewer == nil else { return }  // a stream's connection asks for nothing more
    guard server.isAuthorized(head.headers.first(name: "Authorization")) else {
      var headers = HTTPHeaders()
      headers.add(name: "WWW-Authenticate", value: "Basic realm=\"camfx\"")
      send(.unauthorized, "text/plain", Array("authorization required\n".utf8), head: head, context: context, extra: headers)
      return
    }
    let parts = head.uri.split(separator: "?", maxSplits: 1)
    let path = parts.first.map(String.init) ?? head.uri
    let query = parts.count > 1 ? String(parts[1]) : ""
    guard let target = PreviewRequestPath(path), target.allows(head.method) else {
      send(.notFound, "text/plain", Array("not found\n".utf8), head: head, context: context)
      return
    }
    let resource: PreviewRequestPath.Resource, name: Substring?
    switch target {
    case .cameraList:
      send(.ok, "application/json", server.cameraList(), head: head, context: context)
      return
    case .metrics:
      send(.ok, "text/plain; version=0.0.4; charset=utf-8", server.metricsText(), head: head, context: context)
      return
    case .resource(let asked, let camera):
      (resource, name) = (asked, camera)
    }
    let camera: Int
    if let name {
      guard let index = server.camera(named: name) else {
        // Only a name that could be a camera's is said back.
        let text =
          PreviewCamera.isValid(name: String(name)) ? "no camera named '\(name)' (the names are at /cameras)\n" : "not found\n"
        send(.notFound, "text/plain", Array(text.utf8), head: head, context: context)
        return
      }
      camera = index
    } else if server.cameras.count == 1 {
      camera = 0
    } else {
      switch resource {
      case .page:
        let page = PreviewCamerasPage.html(cameras: server.cameras.map { ($0.name, $0.tap.geometry) })
        send(.ok, "text/html; charset=utf-8", page, head: head, context: context)
      case .state:
        send(.ok, "application/json", server.allStates(), head: head, context: context)
      default:
        let text = "this preview shows several cameras: ask /cameras/NAME\(path) (the names are at /cameras)\n"
        send(.notFound, "text/plain", Array(text.utf8), head: head, context: context)
      }
      return
    }
    respond(to: head, resource: resource, camera: camera, onItsOwnPaths: name != nil, query: query, context: context)
  }

  /// Answers for one camera (its number in the server's `cameras`), asked on its own
  /// paths (`/cameras/NAME/...`) or on the one-camera paths.
  private func respond(
    to head: HTTPRequestHead, resource: PreviewRequestPath.Resource, camera: Int, onItsOwnPaths: Bool, query: String,
    context: ChannelHandlerContext
  ) {
    let preview = server.cameras[camera]
    switch resource {
    case .page, .livePage:
      // `/` of a lone camera is the page on the one-camera paths, as it was before there
      // could be several; `/cameras/NAME/` is on that camera's own.
      let page = PreviewPage.html(
        camera: onItsOwnPaths ? preview.name : nil, live: preview.live, livePath: resource == .livePage)
      send(.ok, "text/html; charset=utf-8", page, head: head, context: context)
    case .liveSocket:
      // An upgrade that was allowed never gets here: say why this one was not.
      let (status, reason) = server.liveRefusal(head) ?? (.badRequest, "live/ws is a WebSocket (GET with Upgrade: websocket)")
      var headers = HTTPHeaders()
      if status == .unauthorized { headers.add(name: "WWW-Authenticate", value: "Basic realm=\"camfx\"") }
      send(status, "text/plain", Array((reason + "\n").utf8), head: head, context: context, extra: headers)
    case .state:
      send(.ok, "application/json", preview.state(), head: head, context: context)
    case .stream:
      startStream(head: head, camera: camera, context: context)
    case .snapshot(let format):
      let png = format == .png
      let channel = context.channel
      let loop = context.eventLoop
      let handler = NIOLoopBound(self, eventLoop: loop)
      let boundContext = NIOLoopBound(context, eventLoop: loop)
      preview.tap.snapshot(format) { result in
        loop.execute {
          guard channel.isActive else { return }
          switch result {
          case .success(let bytes):
            handler.value.send(.ok, png ? "image/png" : "image/jpeg", bytes, head: head, context: boundContext.value)
          case .failure(let error):
            handler.value.send(
              .serviceUnavailable, "text/plain", Array("\(error)\n".utf8), head: head, context: boundContext.value)
          }
        }
      }
    case .events:
      guard let folder = preview.eventFolder else {
        send(.ok, "application/json", Array("{\"clips\":[]}\n".utf8), head: head, context: context)
        return
      }
      answerOffLoop(head: head, context: context) { (.ok, "application/json", PreviewEventClips.json(folder: folder)) }
    case .eventPicture(let name):
      let folder = preview.eventFolder
      answerOffLoop(head: head, context: context) {
        guard let folder, let png = PreviewEventClips.picture(folder: folder, name: name) else {
          return (.notFound, "text/plain", Array("no event clip named '\(name)' with a picture\n".utf8))
        }
        return (.ok, "image/png", png)
      }
    case .event, .eventStop:
      postEvent(head: head, stop: resource == .eventStop, events: preview.events, query: query, context: context)
    }
  }

  /// Answers with what `make` returns, made on another thread (it reads files), so the
  /// event loop never waits for a disk.
  private func answerOffLoop(
    head: HTTPRequestHead, context: ChannelHandlerContext,
    _ make: @escaping @Sendable () -> (HTTPResponseStatus, String, [UInt8])
  ) {
    let loop = context.eventLoop
    let handler = NIOLoopBound(self, eventLoop: loop)
    let boundContext = NIOLoopBound(context, eventLoop: loop)
    DispatchQueue.global().async {
      let (status, type, body) = make()
      loop.execute {
        guard boundContext.value.channel.isActive else { return }
        handler.value.send(status, type, body, head: head, context: boundContext.value)
      }
    }
  }

  /// `POST /event[?duration=3s]` starts or extends an event clip; `POST /event/stop`
  /// ends the open one at its post-roll (each under `/cameras/NAME/` too). A request
  /// from a page of another origin is refused (a browser sends `Origin`; a page
  /// elsewhere must not fire events here).
  private func postEvent(
    head: HTTPRequestHead, stop: Bool, events: (@Sendable (EventRequest) -> Void)?, query: String,
    context: ChannelHandlerContext
  ) {
    guard let events else {
      send(.notFound, "text/plain", Array("this recording takes no events (add --pre-record)\n".utf8), head: head, context: context)
      return
    }
    guard server.isFromOwnPage(head.headers) else {
      send(.forbidden, "text/plain", Array("events come from this server's own page only\n".utf8), head: head, context: context)
      return
    }
    if stop {
      events(.stop)
      send(.ok, "application/json", Array("{\"event\":\"stopping\"}\n".utf8), head: head, context: context)
      return
    }
    var duration: Double? = nil
    for pair in query.split(separator: "&") where pair.hasPrefix("duration=") {
      guard let seconds = EventRequest.seconds(String(pair.dropFirst(9))) else {
        send(.badRequest, "text/plain", Array("invalid duration '\(pair.dropFirst(9))' (expected seconds, e.g. 3 or 3s)\n".utf8), head: head, context: context)
        return
      }
      duration = seconds
    }
    events(.start(duration: duration))
    send(.ok, "application/json", Array("{\"event\":\"started\"}\n".utf8), head: head, context: context)
  }

  private func startStream(head: HTTPRequestHead, camera: Int, context: ChannelHandlerContext) {
    let viewer = MJPEGViewer(channel: context.channel, camera: camera)
    if head.method == .GET {
      guard server.add(viewer) else {
        send(
          .serviceUnavailable, "text/plain", Array("too many preview viewers (at most \(server.maximumClients))\n".utf8),
          head: head, context: context, close: true)
        return
      }
      self.viewer = viewer
    }
    var headers = HTTPHeaders()
    headers.add(name: "Content-Type", value: "multipart/x-mixed-replace; boundary=\(PreviewServer.boundary)")
    headers.add(name: "Cache-Control", value: "no-cache, no-store")
    headers.add(name: "Connection", value: "close")
    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
    guard head.method == .GET else {
      context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
      return
    }
  }

  private func send(
    _ status: HTTPResponseStatus, _ type: String, _ body: [UInt8], head: HTTPRequestHead,
    context: ChannelHandlerContext, extra: HTTPHeaders = HTTPHeaders(), close: Bool = false
  ) {
    var headers = extra
    headers.add(name: "Content-Type", value: type)
    headers.add(name: "Content-Length", value: String(body.count))
    headers.add(name: "Cache-Control", value: "no-cache, no-store")
    let keepAlive = head.isKeepAlive && !close
    headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
    if head.method != .HEAD {
      var buffer = context.channel.allocator.buffer(capacity: body.count)
      buffer.writeBytes(body)
      context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }
    let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
    if keepAlive {
      awaitRequest(context: context)
    } else {
      done.whenComplete { _ in context.close(promise: nil) }
    }
  }
}
