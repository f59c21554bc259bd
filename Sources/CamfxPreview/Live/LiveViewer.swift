import NIOCore
import NIOWebSocket
import Synchronization

/// One WebSocket of the live view. It never holds anything up: what it has not sent
/// yet is counted (its in-flight fragments, until NIO says each is in the socket), and
/// once the oldest of them is more than `maximumLagSeconds` behind the newest fragment,
/// it stops sending, asks for a keyframe, and goes on from the next keyframe that
/// finds it caught up, telling the page with a `skip` message so that it jumps too.
///
/// Everything but `skips` lives on its channel's event loop.
final class LiveViewer: @unchecked Sendable {
  /// A fragment as every viewer sends it: the same bytes for all.
  struct Fragment: Sendable {
    let bytes: ByteBuffer
    let isKeyframe: Bool
    let decodeSeconds: Double
  }

  static let maximumLagSeconds = 1.0
  /// A waiting viewer resumes only once this little is still in flight.
  static let resumeLagSeconds = 0.25

  let channel: any Channel
  private weak var view: LiveView?
  private var inFlight: [(decodeSeconds: Double, bytes: Int)] = []
  private var inFlightStart = 0
  private var started = false
  /// The hello has gone out: nothing binary may go before it.
  private var greeted = false
  /// An init segment offered before the hello went out (the output made it between
  /// this viewer joining and its `start`), sent right after the hello.
  private var pendingInitSegment: ByteBuffer?
  private var waitingForKeyframe = false
  private var lastSentSeconds: Double?
  private var lastKeyframeRequest: Double = -.infinity
  private let skips = Atomic<Int>(0)
  /// Fragments sent, and dropped while waiting for a keyframe.
  private(set) var sent = 0
  private(set) var dropped = 0

  init(channel: any Channel, view: LiveView) {
    self.channel = channel
    self.view = view
  }

  /// Times it fell behind and skipped.
  var skipsSoFar: Int { skips.load(ordering: .relaxed) }

  /// The first messages: what the stream is, its init segment (nil: it follows when the
  /// output has made it), and the fragments since the last keyframe.
  func start(hello: String, initSegment: ByteBuffer?, fragments: [Fragment]) {
    channel.eventLoop.execute { [self] in
      send(text: hello)
      greeted = true
      if let initSegment {
        startOnLoop(initSegment: initSegment, fragments: fragments)
      } else if let pendingInitSegment {
        startOnLoop(initSegment: pendingInitSegment, fragments: [])
      }
      pendingInitSegment = nil
    }
  }

  /// The init segment of an output that started after this viewer joined. It can come
  /// before `start`'s hello (the viewer is listed before it is started): then it waits
  /// for the hello.
  func offer(initSegment: ByteBuffer) {
    channel.eventLoop.execute { [self] in
      guard !started else { return }
      guard greeted else {
        pendingInitSegment = initSegment
        return
      }
      startOnLoop(initSegment: initSegment, fragments: [])
    }
  }

  private func startOnLoop(initSegment: ByteBuffer, fragments: [Fragment]) {
    started = true
    write(initSegment, seconds: nil)
    for fragment in fragments { offerOnLoop(fragment) }
  }

  func offer(_ fragment: Fragment) {
    channel.eventLoop.execute { [self] in self.offerOnLoop(fragment) }
  }

  private func offerOnLoop(_ fragment: Fragment) {
    guard started, channel.isActive else { return }
    let oldest = inFlight.count > inFlightStart ? inFlight[inFlightStart].decodeSeconds : fragment.decodeSeconds
    let lag = fragment.decodeSeconds - oldest
    if waitingForKeyframe {
      guard fragment.isKeyframe, lag <= Self.resumeLagSeconds else {
        dropped += 1
        if !fragment.isKeyframe { askForKeyframe(at: fragment.decodeSeconds) }
        return
      }
      waitingForKeyframe = false
      let from = lastSentSeconds.map { String($0) } ?? "null"
      send(text: #"{"type":"skip","from":\#(from),"to":\#(fragment.decodeSeconds)}"#)
    } else if lag > Self.maximumLagSeconds {
      waitingForKeyframe = true
      skips.add(1, ordering: .relaxed)
      dropped += 1
      askForKeyframe(at: fragment.decodeSeconds)
      return
    }
    write(fragment.bytes, seconds: fragment.decodeSeconds)
    lastSentSeconds = fragment.decodeSeconds
    sent += 1
  }

  /// At most one request a second: each is a keyframe in the recording too.
  private func askForKeyframe(at seconds: Double) {
    guard seconds - lastKeyframeRequest >= 1 else { return }
    lastKeyframeRequest = seconds
    view?.requestKeyframe()
  }

  private func write(_ bytes: ByteBuffer, seconds: Double?) {
    if let seconds { inFlight.append((seconds, bytes.readableBytes)) }
    let frame = WebSocketFrame(fin: true, opcode: .binary, data: bytes)
    let done = channel.writeAndFlush(frame)
    guard seconds != nil else { return }
    done.whenComplete { [self] _ in
      inFlightStart += 1
      if inFlightStart > 64, inFlightStart * 2 > inFlight.count {
        inFlight.removeFirst(inFlightStart)
        inFlightStart = 0
      }
    }
  }

  func send(text: String) {
    var buffer = channel.allocator.buffer(capacity: text.utf8.count)
    buffer.writeString(text)
    channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
  }
}
