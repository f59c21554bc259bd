import Camfx
import CamfxMedia
import Dispatch
import NIOCore
import Synchronization

/// The live view of one camera: the encoder's own packets as fragmented MP4, muxed
/// once (`LiveFragmentOutput` on the packet bus) and sent to every viewer's WebSocket.
///
/// - The bus output is attached when the first viewer comes and detached 10 s after
///   the last one leaves: with no viewer the recording pays nothing.
/// - A viewer starts at once: the init segment, then the fragments since the last
///   keyframe, then each new one.
/// - A viewer that falls behind skips to a keyframe alone (`LiveViewer`); the others,
///   the files and the encoder never wait for it.
public final class LiveView: @unchecked Sendable {
  // @unchecked Sendable: what changes is under `shared`; the bus and the clock are
  // thread-safe.

  /// Why a browser cannot play this camera live (one line), or nil when it can.
  public let refusal: String?
  /// What MSE is told the stream is (`video/mp4; codecs="avc1.64001f,mp4a.40.2"`).
  public let mimeType: String
  private let bus: PacketBus?
  private let capturedNanoseconds: @Sendable (Double) -> Int64?
  /// Seconds the bus output stays attached after the last viewer has gone.
  let lingerSeconds: Double

  private struct Shared {
    var output: LiveFragmentOutput?
    var subscription: PacketSubscription?
    var initSegment: ByteBuffer?
    /// The fragments from the last keyframe on: where a new viewer starts.
    var sinceKeyframe: [LiveViewer.Fragment] = []
    var sinceKeyframeBytes = 0
    var viewers: [ObjectIdentifier: LiveViewer] = [:]
    /// Bumped by each join and leave: a detach scheduled before a join is void.
    var generation = 0
    var fragments = 0
    var skips = 0
    var joins = 0
    /// Each viewer's last reported latency (seconds), by viewer.
    var latencies: [ObjectIdentifier: Double] = [:]
  }
  private let shared = Mutex(Shared())
  /// The newest fragments kept for a joining viewer; beyond them it waits for the next keyframe.
  static let sinceKeyframeLimit = (fragments: 1200, bytes: 32 << 20)

  /// A live view of what `pipeline` encodes; one that says why not when it encodes
  /// nothing (`camfx preview`) or nothing a browser plays.
  public convenience init(pipeline: RecordingPipeline) {
    self.init(bus: pipeline.bus) { pipeline.capturedNanoseconds(atSeconds: $0) }
  }

  /// - Parameters:
  ///   - bus: the recording's packet bus; nil when it encodes nothing.
  ///   - capturedNanoseconds: when the frame at a time of the recording was captured.
  public init(bus: PacketBus?, lingerSeconds: Double = 10, capturedNanoseconds: @escaping @Sendable (Double) -> Int64?) {
    self.bus = bus
    self.capturedNanoseconds = capturedNanoseconds
    self.lingerSeconds = lingerSeconds
    if let bus {
      refusal = LiveFragmentOutput.refusal(for: bus.streams)
      mimeType = LiveFragmentOutput.mimeType(for: bus.streams)
    } else {
      refusal = "this preview encodes nothing (camfx preview): the live view needs a recording (camfx record --preview)"
      mimeType = ""
    }
  }

  /// Viewers watching now.
  public var viewerCount: Int { shared.withLock { $0.viewers.count } }

  /// Adds `viewer` and sends it what it needs to start; attaches the bus output for the
  /// first viewer.
  /// - Throws: `PreviewError` when the recording has ended or the stream cannot be muxed.
  func join(_ viewer: LiveViewer) throws(PreviewError) {
    guard refusal == nil, let bus else { throw PreviewError(refusal ?? "no live view") }
    let start: (ByteBuffer, [LiveViewer.Fragment])? = shared.withLock { s in
      s.viewers[ObjectIdentifier(viewer)] = viewer
      s.generation += 1
      s.joins += 1
      guard let initSegment = s.initSegment else { return nil }
      return (initSegment, s.sinceKeyframe)
    }
    viewer.start(hello: hello(), initSegment: start?.0, fragments: start?.1 ?? [])
    let attached = shared.withLock { $0.subscription != nil }
    guard !attached else { return }
    do {
      let output = try LiveFragmentOutput(
        captureNanoseconds: capturedNanoseconds,
        onInitSegment: { [weak self] bytes in self?.received(initSegment: bytes) },
        onFragment: { [weak self] fragment in self?.received(fragment) })
      let subscription = try bus.subscribe(output, from: .lastKeyframe, failureEndsRecording: false, waitsWhenFull: false)
      let extra: PacketSubscription? = shared.withLock { s in
        guard s.subscription == nil else { return subscription }
        s.output = output
        s.subscription = subscription
        return nil
      }
      // Two first viewers at once: one output is enough.
      if let extra { DispatchQueue.global().async { bus.unsubscribe(extra, drain: false) } }
    } catch {
      shared.withLock { s in _ = s.viewers.removeValue(forKey: ObjectIdentifier(viewer)) }
      throw PreviewError("the live view cannot start: \(error)")
    }
  }

  /// Removes `viewer`; detaches the bus output `lingerSeconds` after the last one left.
  func leave(_ viewer: LiveViewer) {
    let generation: Int? = shared.withLock { s in
      guard s.viewers.removeValue(forKey: ObjectIdentifier(viewer)) != nil else { return nil }
      s.latencies[ObjectIdentifier(viewer)] = nil
      s.skips += viewer.skipsSoFar
      s.generation += 1
      return s.viewers.isEmpty ? s.generation : nil
    }
    guard let generation else { return }
    DispatchQueue.global().asyncAfter(deadline: .now() + lingerSeconds) { [weak self] in self?.detach(ifStill: generation) }
  }

  private func detach(ifStill generation: Int) {
    let subscription: PacketSubscription? = shared.withLock { s in
      guard s.generation == generation, s.viewers.isEmpty else { return nil }
      defer {
        s.subscription = nil
        s.output = nil
        s.initSegment = nil
        s.sinceKeyframe = []
        s.sinceKeyframeBytes = 0
      }
      return s.subscription
    }
    if let subscription { bus?.unsubscribe(subscription, drain: false) }
  }

  /// Asks the encoder for a keyframe (a viewer waits to resume on one).
  func requestKeyframe() { shared.withLock { $0.output }?.requestKeyframe() }

  /// A viewer's own figure of how far behind the camera it plays.
  func report(latency: Double, from viewer: LiveViewer) {
    guard latency.isFinite, latency >= 0 else { return }
    shared.withLock { $0.latencies[ObjectIdentifier(viewer)] = latency }
  }

  /// The text message a viewer gets first: what MSE is to be told.
  private func hello() -> String {
    let mime = mimeType.replacingOccurrences(of: "\"", with: "\\\"")
    return #"{"type":"hello","mime":"\#(mime)"}"#
  }

  private func received(initSegment bytes: [UInt8]) {
    let buffer = ByteBuffer(bytes: bytes)
    let viewers = shared.withLock { s in
      s.initSegment = buffer
      return Array(s.viewers.values)
    }
    for viewer in viewers { viewer.offer(initSegment: buffer) }
  }

  private func received(_ fragment: LiveFragment) {
    let kept = LiveViewer.Fragment(
      bytes: ByteBuffer(bytes: fragment.bytes), isKeyframe: fragment.isKeyframe, decodeSeconds: fragment.decodeSeconds)
    let viewers = shared.withLock { s in
      s.fragments += 1
      if fragment.isKeyframe {
        s.sinceKeyframe = []
        s.sinceKeyframeBytes = 0
      }
      if s.sinceKeyframe.count < Self.sinceKeyframeLimit.fragments, s.sinceKeyframeBytes < Self.sinceKeyframeLimit.bytes,
        fragment.isKeyframe || !s.sinceKeyframe.isEmpty
      {
        s.sinceKeyframe.append(kept)
        s.sinceKeyframeBytes += fragment.bytes.count
      }
      return Array(s.viewers.values)
    }
    for viewer in viewers { viewer.offer(kept) }
  }

  /// Adds the live view's figures to `/metrics`.
  func addMetrics(to families: inout MetricFamilies, camera: String) {
    let (viewers, fragments, skips, latencies) = shared.withLock { s in
      (Array(s.viewers.values), s.fragments, s.skips, Array(s.latencies.values))
    }
    let labels = [("camera", camera)]
    families.add("camfx_live_viewers", .gauge, help: "Viewers of the live view.", labels: labels, value: Double(viewers.count))
    families.add(
      "camfx_live_fragments_total", .counter, help: "Fragments the live view made (one per video frame).", labels: labels,
      value: Double(fragments))
    families.add(
      "camfx_live_skips_total", .counter, help: "Times a live viewer fell behind and skipped to a keyframe.", labels: labels,
      value: Double(skips + viewers.reduce(0) { $0 + $1.skipsSoFar }))
    if !latencies.isEmpty {
      let sorted = latencies.sorted()
      families.add(
        "camfx_live_latency_seconds", .gauge, help: "Capture to screen, the median of what the live viewers report.",
        labels: labels, value: sorted[sorted.count / 2])
    }
  }

  /// The figures `/state` shows of the live view.
  func stateJSON() -> String {
    let (viewers, skips, latencies) = shared.withLock { s in (s.viewers.count, s.skips, Array(s.latencies.values)) }
    let latency = latencies.isEmpty ? "null" : String(latencies.sorted()[latencies.count / 2])
    return #"{"viewers":\#(viewers),"skips":\#(skips),"latency":\#(latency)}"#
  }
}
