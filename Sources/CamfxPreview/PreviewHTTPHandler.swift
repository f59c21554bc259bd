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

  init(server: PreviewServer) { self.server = server }

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
    if head.method == .POST, path == "/event" || path == "/event/stop" {
      postEvent(head: head, path: path, query: parts.count > 1 ? String(parts[1]) : "", context: context)
      return
    }
    guard head.method == .GET || head.method == .HEAD else {
      send(.notFound, "text/plain", Array("not found\n".utf8), head: head, context: context)
      return
    }
    switch path {
    case "/":
      send(.ok, "text/html; charset=utf-8", PreviewPage.html, head: head, context: context)
    case "/state":
      send(.ok, "application/json", server.state(), head: head, context: context)
    case "/stream.mjpeg":
      startStream(head: head, context: context)
    case "/snapshot.jpg", "/snapshot.png":
      let png = path.hasSuffix("png")
      let channel = context.channel
      let loop = context.eventLoop
      let handler = NIOLoopBound(self, eventLoop: loop)
      let boundContext = NIOLoopBound(context, eventLoop: loop)
      server.tap.snapshot(png ? .png : .jpeg) { result in
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
    default:
      send(.notFound, "text/plain", Array("not found\n".utf8), head: head, context: context)
    }
  }

  /// `POST /event[?duration=3s]` starts or extends an event clip; `POST /event/stop`
  /// ends the open one at its post-roll. A request from a page of another origin is
  /// refused (a browser sends `Origin`; a page elsewhere must not fire events here).
  private func postEvent(head: HTTPRequestHead, path: String, query: String, context: ChannelHandlerContext) {
    guard let events = server.events else {
      send(.notFound, "text/plain", Array("this recording takes no events (add --pre-record)\n".utf8), head: head, context: context)
      return
    }
    if let origin = head.headers.first(name: "Origin") {
      let host = head.headers.first(name: "Host") ?? ""
      guard origin == "http://\(host)" else {
        send(.forbidden, "text/plain", Array("events come from this server's own page only\n".utf8), head: head, context: context)
        return
      }
    }
    if path == "/event/stop" {
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

  private func startStream(head: HTTPRequestHead, context: ChannelHandlerContext) {
    let viewer = MJPEGViewer(channel: context.channel)
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
