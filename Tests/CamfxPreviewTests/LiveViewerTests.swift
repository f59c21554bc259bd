import NIOCore
import NIOEmbedded
import NIOWebSocket
import XCTest

@testable import CamfxPreview

/// One live-view WebSocket's first messages, on an `EmbeddedChannel` (no server, no
/// browser: the order is the whole point, and a real server shows it only by chance).
final class LiveViewerTests: XCTestCase {
  /// The output can make its init segment between a viewer being listed and being
  /// started; either way the page gets the hello first (MSE is told the codec before any
  /// bytes), then the init segment, once.
  func testTheHelloGoesBeforeTheInitSegmentWhicheverComesFirst() throws {
    let segment = ByteBuffer(bytes: [0, 0, 0, 8, 0x66, 0x74, 0x79, 0x70])
    for segmentOfferedFirst in [true, false] {
      let channel = EmbeddedChannel()
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
      let view = LiveView(bus: nil, capturedNanoseconds: { _ in nil })
      let viewer = LiveViewer(channel: channel, view: view)
      if segmentOfferedFirst { viewer.offer(initSegment: segment) }
      viewer.start(hello: #"{"type":"hello"}"#, initSegment: nil, fragments: [])
      if !segmentOfferedFirst { viewer.offer(initSegment: segment) }
      channel.embeddedEventLoop.run()
      let first = try XCTUnwrap(try channel.readOutbound(as: WebSocketFrame.self), "\(segmentOfferedFirst)")
      XCTAssertEqual(first.opcode, .text, "segment offered first: \(segmentOfferedFirst)")
      XCTAssertEqual(String(buffer: first.data), #"{"type":"hello"}"#)
      let second = try XCTUnwrap(try channel.readOutbound(as: WebSocketFrame.self), "\(segmentOfferedFirst)")
      XCTAssertEqual(second.opcode, .binary, "segment offered first: \(segmentOfferedFirst)")
      XCTAssertEqual(second.data, segment)
      XCTAssertNil(try channel.readOutbound(as: WebSocketFrame.self), "segment offered first: \(segmentOfferedFirst)")
      _ = try? channel.finish()
    }
  }
}
