import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import Synchronization

/// Where an encode's packets go: the encoders (or a stream copy) publish each packet
/// once, by reference, and every attached output gets it through a queue and a worker
/// of its own (`PacketSubscription`). Outputs attach and detach while the recording
/// runs, as GStreamer's `tee` request pads and MediaMTX's readers do:
///
///     video encoder ─┐                  ┌─▶ queue ─▶ worker ─▶ file
///                    ├─▶ publish ──────┼─▶ queue ─▶ worker ─▶ RTMP (drops late video)
///     audio encoder ─┘   (no I/O)       └─▶ queue ─▶ worker ─▶ an output of your own
///                          │
///                          └─ the packets since the last keyframe, for a late joiner
///
/// One bus carries all of an encode's streams (video and sound), so that each output
/// gets them in the order they were made and muxes them together.
///
/// - `publish` takes the bus's lock only to update the last GOP and read the list of
///   outputs; it then hands the packet to each queue. It does no I/O, and waits only
///   for a file whose queue is full (`OutputQueueLimits.file`): frames are then dropped
///   at a live source, and counted there, rather than inside a file's GOPs.
/// - `subscribe` starts an output from the bus's last keyframe (its stream description
///   first: `prepare`), so a late joiner begins with a picture that decodes at once.
///   The last GOP is taken and the output added under one lock: no packet is missed or
///   given twice.
/// - A file output that fails fails the bus: the next `publish` throws its error. A
///   live output that fails ends alone, and the recording goes on.
///
/// `@unchecked Sendable`: the subscriber list and the last GOP are under `shared`.
public final class PacketBus: @unchecked Sendable {
  /// Where a new output starts.
  public enum Start: Sendable, Equatable {
    /// At the last keyframe published (the packets since then are queued at once); at
    /// the next one when the last GOP was not kept.
    case lastKeyframe
    /// At the next keyframe published.
    case nextKeyframe
    /// At the last keyframe at least this many seconds before the newest packet, from
    /// the packets the bus keeps (`keepPackets`): an event clip's pre-roll. The oldest
    /// kept keyframe when none is that old.
    case secondsAgo(Double)
    /// At the last kept keyframe at or before this time in the recording (seconds): a
    /// clip whose trigger came from a frame the encoder has not finished yet.
    case at(Double)
  }

  /// What the bus has done, for reports and benchmarks.
  public struct Figures: Sendable {
    public var packets = 0
    /// Time spent in `publish`, on the publishers' threads.
    public var publishNanoseconds: Int64 = 0
    public var longestPublishNanoseconds: Int64 = 0
    /// Packets and bytes kept for outputs that start in the past, and the seconds from
    /// the oldest kept keyframe to the newest video packet.
    public var keptPackets = 0
    public var keptBytes = 0
    public var keptSeconds = 0.0
    /// The most bytes kept at once.
    public var peakKeptBytes = 0
    /// GOPs dropped from the kept packets because they passed `keepPackets`'s bytes.
    public var keptGOPsDroppedForBytes = 0
  }

  public let streams: [EncodedStream]
  /// The most packets and bytes kept for late joiners without `keepPackets`; a longer
  /// GOP is not kept (a late joiner then waits for the next keyframe).
  public let lastGOPLimit: (packets: Int, bytes: Int)
  /// The queue limits of an output that takes every packet (a file), unless its
  /// `subscribe` says otherwise.
  public let fileQueueLimits: OutputQueueLimits

  private struct Shared {
    var subscriptions: [PacketSubscription] = []
    /// Packets since the oldest kept keyframe, in publish order, after the sound
    /// published before it that plays from it on (`replay`).
    var kept: [EncodedPacket] = []
    /// Positions in `kept` of its video keyframes.
    var keyframes: [Int] = []
    var keptBytes = 0
    /// False once the last GOP outgrew `lastGOPLimit`, until the next keyframe.
    var lastGOPComplete = true
    var sawVideo = false
    var newestVideoSeconds = 0.0
    /// `keepPackets`: seconds and bytes.
    var retention: (seconds: Double, bytes: Int)?
    var closed = false
    /// What `finish()` or `cancel()` is ending, for `interruptLiveOutputs()`.
    var ending: [PacketSubscription] = []
    var figures = Figures()
  }

  private let shared = Mutex(Shared())
  private let events: (@Sendable (String) -> Void)?

  /// - Parameters:
  ///   - streams: the streams every packet belongs to (video first).
  ///   - fileQueueLimits: `.file` behind a live source, `.fileFromStoredMedia` behind
  ///     one that can wait.
  ///   - events: told, one line each, when an output reconnects, loses its connection
  ///     or ends (from the outputs' workers).
  public init(
    streams: [EncodedStream], fileQueueLimits: OutputQueueLimits = .file,
    lastGOPLimit: (packets: Int, bytes: Int) = (4096, 64 << 20), events: (@Sendable (String) -> Void)? = nil
  ) {
    self.streams = streams
    self.fileQueueLimits = fileQueueLimits
    self.lastGOPLimit = lastGOPLimit
    self.events = events
  }

  deinit {
    // A bus dropped while outputs are attached completes what they hold.
    let subscriptions = shared.withLock { $0.subscriptions }
    for subscription in subscriptions { subscription.end(.cancel) }
  }

  /// Attaches `output`: tells it the streams, gives it a queue and a worker, and starts
  /// it at `start`.
  /// - Parameters:
  ///   - limits: its queue's limits; a file's or a live output's by default.
  ///   - failureEndsRecording: whether the recording fails when this output does (a
  ///     file's write error ends `publish` and `finish` with it). False for an output
  ///     that comes and goes beside the recording, such as an event clip: its failure
  ///     ends it alone, and the recording goes on. Live outputs always end alone.
  ///   - waitsWhenFull: whether a full queue makes `publish` wait for room (the default:
  ///     a file never loses a packet). False for an output beside a live recording
  ///     that must not hold the encoder up (an event clip): a full queue ends it alone.
  /// - Throws: `FFmpegError` when the output refuses the streams, or the bus has
  ///   finished; the output is then not attached.
  @discardableResult
  public func subscribe(
    _ output: any MovieOutput, from start: Start = .lastKeyframe, limits: OutputQueueLimits? = nil,
    failureEndsRecording: Bool = true, waitsWhenFull: Bool = true
  ) throws(FFmpegError) -> PacketSubscription {
    try output.prepare(streams: streams)
    let subscription = PacketSubscription(
      output: output, limits: limits ?? (output.delivery.isLive ? .live : fileQueueLimits),
      failureEndsRecording: failureEndsRecording, waitsWhenFull: waitsWhenFull, events: events)
    do {
      try subscription.start()
    } catch {
      throw FFmpegError(code: camfx_averror(error.code), operation: "starting the worker of '\(subscription.name)'")
    }
    let closed = shared.withLock { s in
      if s.closed { return true }
      let from: Int?
      switch start {
      case .lastKeyframe: from = s.lastGOPComplete ? s.keyframes.last : nil
      case .nextKeyframe: from = nil
      case .secondsAgo(let seconds):
        let before = s.newestVideoSeconds - seconds
        from = s.keyframes.last { s.kept[$0].presentationSeconds <= before + 1e-9 } ?? s.keyframes.first
      case .at(let before):
        from = s.keyframes.last { s.kept[$0].presentationSeconds <= before + 1e-9 } ?? s.keyframes.first
      }
      subscription.join(with: from.map { replay(from: $0, in: s) } ?? [], waitForKeyframe: s.sawVideo || start == .nextKeyframe)
      s.subscriptions.append(subscription)
      return false
    }
    if closed {
      subscription.end(.cancel)
      throw FFmpegError.invalid("attaching '\(subscription.name)'", "the recording has ended")
    }
    return subscription
  }

  /// Detaches an output: from the next packet on it gets nothing more; then its worker
  /// writes what is queued and finishes it (`drain`), or drops it and cancels it. Waits
  /// until the worker is done.
  /// - Returns: the error that ended or finished the output, if one did.
  @discardableResult
  public func unsubscribe(_ subscription: PacketSubscription, drain: Bool = true) -> FFmpegError? {
    shared.withLock { s in s.subscriptions.removeAll { $0 === subscription } }
    subscription.end(drain ? .drain : .cancel)
    return subscription.failure
  }

  /// The outputs attached now, in the order they were attached.
  public var subscriptions: [PacketSubscription] { shared.withLock { $0.subscriptions } }

  public var figures: Figures { shared.withLock { $0.figures } }

  /// True once the bus is closed (`finish` has begun, or `cancel`): no output can be
  /// attached any more.
  public var hasFinished: Bool { shared.withLock { $0.closed } }

  /// Asked on the video encoder's thread before each frame: true when an output wants
  /// it to be a keyframe (a segment boundary).
  public func requestsKeyframe(atSeconds seconds: Double) -> Bool {
    let subscriptions = shared.withLock { $0.subscriptions }
    var wanted = false
    // Every output is asked: each keeps its own schedule.
    for subscription in subscriptions where subscription.output.requestsKeyframe(atSeconds: seconds) { wanted = true }
    return wanted
  }

  /// Hands `packet` to every attached output. Called by the encoders (one thread per
  /// stream); the packet must not change afterwards.
  /// - Throws: the error of a file output that failed (the recording has then failed).
  public func publish(_ packet: EncodedPacket) throws(FFmpegError) {
    let started = MonotonicClock.nanoseconds()
    let subscriptions = shared.withLock { s in
      keep(packet, in: &s)
      return s.subscriptions
    }
    var failure: FFmpegError? = nil
    for subscription in subscriptions {
      subscription.deliver(packet)
      if failure == nil, subscription.failureEndsRecording, let error = subscription.failure { failure = error }
    }
    let took = MonotonicClock.nanoseconds() - started
    shared.withLock { s in
      s.figures.packets += 1
      s.figures.publishNanoseconds += took
      s.figures.longestPublishNanoseconds = max(s.figures.longestPublishNanoseconds, took)
    }
    if let failure { throw failure }
  }

  /// Keeps packets for outputs that start in the past, from now on: at least `seconds`
  /// before the newest packet (from the last keyframe at or before then), trimmed by
  /// whole GOPs, and at most `maximumBytes` (the oldest GOPs go first, counted in
  /// `figures`). Without it the bus keeps the last GOP only.
  public func keepPackets(seconds: Double, maximumBytes: Int) {
    precondition(seconds >= 0 && maximumBytes > 0)
    shared.withLock { s in s.retention = (seconds, maximumBytes) }
  }

  /// What a joiner starting at the kept keyframe at `index` is given: the keyframe, then
  /// the sound kept before it that plays at or after it, then everything kept after it.
  ///
  /// The sound encoder's packets reach the bus before the video encoder's of the same
  /// time (x264's lookahead and frame threads hold pictures back by a few tenths of a
  /// second), so the sound that goes with a GOP's first pictures was published before
  /// its keyframe: chosen by position it would be lost, and a clip's sound would start
  /// that much after its picture. Each stream stays in its own order.
  private func replay(from index: Int, in s: Shared) -> [EncodedPacket] {
    let keyframe = s.kept[index]
    let start = keyframe.presentationSeconds
    let earlySound = s.kept[..<index].filter { $0.stream.kind != .video && $0.presentationSeconds >= start - 1e-9 }
    return [keyframe] + earlySound + s.kept[(index + 1)...]
  }

  /// Keeps `packet` for outputs that start in the past, and trims what is kept.
  ///
  /// Sound is kept while video waits for a keyframe (at the start, or after an
  /// oversized GOP): it comes before the pictures of the same time (`replay`), and the
  /// next keyframe keeps the part of it that plays from then on.
  private func keep(_ packet: EncodedPacket, in s: inout Shared) {
    let isVideo = packet.stream.kind == .video
    if isVideo {
      s.sawVideo = true
      s.newestVideoSeconds = max(s.newestVideoSeconds, packet.presentationSeconds)
    }
    let isKeyframe = isVideo && packet.isKeyframe
    if isKeyframe {
      s.lastGOPComplete = true
      s.keyframes.append(s.kept.count)
    }
    guard !isVideo || (s.lastGOPComplete && !s.keyframes.isEmpty) else { return }
    s.kept.append(packet)
    s.keptBytes += packet.byteCount
    if let retention = s.retention, !s.keyframes.isEmpty {
      // Before the first keyframe: only the sound that plays from it on stays.
      if isKeyframe && s.keyframes.count == 1 { dropKept(before: s.keyframes[0], in: &s) }
      // Drop the oldest GOP while the next keyframe is old enough to start from, or
      // while the bytes are over (keeping the newest GOP whatever it weighs).
      while s.keyframes.count >= 2 {
        let secondStart = s.kept[s.keyframes[1]].presentationSeconds
        let oldEnough = secondStart <= s.newestVideoSeconds - retention.seconds + 1e-9
        let tooBig = s.keptBytes > retention.bytes
        guard oldEnough || tooBig else { break }
        if !oldEnough { s.figures.keptGOPsDroppedForBytes += 1 }
        dropKept(before: s.keyframes[1], in: &s)
      }
    } else if isKeyframe {
      // Without `keepPackets`, the last GOP only.
      dropKept(before: s.keyframes[s.keyframes.count - 1], in: &s)
    }
    if s.kept.count > lastGOPLimit.packets || s.keptBytes > lastGOPLimit.bytes,
      s.retention == nil || s.keyframes.isEmpty
    {
      s.kept.removeAll()
      s.keyframes.removeAll()
      s.keptBytes = 0
      s.lastGOPComplete = false
    }
    s.figures.keptPackets = s.kept.count
    s.figures.keptBytes = s.keptBytes
    s.figures.peakKeptBytes = max(s.figures.peakKeptBytes, s.keptBytes)
    s.figures.keptSeconds = s.keyframes.first.map { s.newestVideoSeconds - s.kept[$0].presentationSeconds } ?? 0
  }

  /// Drops the kept packets before position `cut` (a keyframe's), but for the sound
  /// that plays at or after that keyframe (`replay`).
  private func dropKept(before cut: Int, in s: inout Shared) {
    let start = s.kept[cut].presentationSeconds
    var left: [EncodedPacket] = []
    for packet in s.kept[..<cut] {
      if packet.stream.kind != .video && packet.presentationSeconds >= start - 1e-9 {
        left.append(packet)
      } else {
        s.keptBytes -= packet.byteCount
      }
    }
    s.kept.replaceSubrange(..<cut, with: left)
    let moved = cut - left.count
    s.keyframes.removeAll { $0 < cut }
    for i in s.keyframes.indices { s.keyframes[i] -= moved }
  }

  /// Detaches every output, draining each and finishing it; waits for them all.
  /// - Throws: the first error of a file output (what it wrote is kept).
  public func finish() throws(FFmpegError) {
    let subscriptions = close()
    var failure: FFmpegError? = nil
    for subscription in subscriptions {
      subscription.end(.drain)
      if failure == nil, subscription.failureEndsRecording, let error = subscription.failure { failure = error }
    }
    shared.withLock { $0.ending = [] }
    if let failure { throw failure }
  }

  /// Detaches every output at once: live outputs drop what is queued, files write it;
  /// each is then cancelled (completing what it holds).
  public func cancel() {
    for subscription in close() { subscription.end(.cancel) }
    shared.withLock { $0.ending = [] }
  }

  /// Cuts short the live outputs that `finish()` is ending (a second Ctrl-C): each
  /// stops waiting to send its queue or for its receiver, and closes. Files are left to
  /// complete. Safe from any thread.
  public func interruptLiveOutputs() {
    for subscription in shared.withLock({ $0.ending }) where subscription.delivery.isLive {
      subscription.output.interrupt()
    }
  }

  private func close() -> [PacketSubscription] {
    shared.withLock { s in
      s.closed = true
      let all = s.subscriptions
      s.subscriptions = []
      s.ending = all
      s.kept = []
      s.keyframes = []
      return all
    }
  }
}
