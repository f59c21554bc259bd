import Foundation
import NIOCore
import NIOWebSocket

/// The WebSocket of one live viewer, once the upgrade is done: answers pings, ends on
/// a close, reads the page's reports (`{"latency": 0.21}`), pings a quiet page every
/// 15 s and closes one that has said nothing for 45 s (a browser that went away
/// without closing). It holds one of the server's viewer places until it closes.
final class LiveWebSocketHandler: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let server: PreviewServer
  private let view: LiveView
  private let viewer: LiveViewer
  private var lastHeard = NIODeadline.now()
  private var keepAlive: RepeatedTask?
  private var closing = false

  init(server: PreviewServer, view: LiveView, viewer: LiveViewer) {
    self.server = server
    self.view = view
    self.viewer = viewer
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(15), delay: .seconds(15)) { _ in
      let handler = bound.value
      guard NIODeadline.now() - handler.lastHeard < .seconds(45) else {
        channel.close(promise: nil)
        return
      }
      channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .ping, data: channel.allocator.buffer(capacity: 0)), promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    keepAlive?.cancel()
    keepAlive = nil
    view.leave(viewer)
    server.liveViewerLeft()
    server.connections.subtract(1, ordering: .relaxed)
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    lastHeard = .now()
    switch frame.opcode {
    case .ping:
      let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
      context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
    case .connectionClose:
      guard !closing else {
        context.close(promise: nil)
        return
      }
      closing = true
      var data = frame.unmaskedData
      let code = data.readSlice(length: 2) ?? context.channel.allocator.buffer(capacity: 0)
      let reply = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
      context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in context.close(promise: nil) }
    case .text:
      var data = frame.unmaskedData
      guard let text = data.readString(length: data.readableBytes), text.utf8.count < 4096,
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      else { return }
      if let latency = object["latency"] as? Double { view.report(latency: latency, from: viewer) }
    default:
      break
    }
  }
}
