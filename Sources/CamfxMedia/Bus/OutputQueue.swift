/// How an output takes the packets it cannot write at once: the policy of its queue on
/// the packet bus.
public enum OutputDelivery: Sendable, Equatable {
  /// Every packet, in order: a file. Its queue holds `OutputQueueLimits.file` (a minute
  /// of packets in memory); beyond that the encoder waits for it, so that frames are
  /// dropped — and counted — at a live source, never inside the file's GOPs.
  case everyPacket
  /// A live output (a network stream, a pipe, HLS): once the video waiting in its queue
  /// lags the newest packet by more than `afterSeconds`, new video is dropped up to the
  /// next keyframe, and sound is kept. It never holds the encoder up.
  case dropsLateVideo(afterSeconds: Double)

  /// A live output's usual threshold.
  public static let live = OutputDelivery.dropsLateVideo(afterSeconds: 5)

  public var isLive: Bool {
    if case .dropsLateVideo = self { return true }
    return false
  }
}

/// The most an output's queue holds, in packets, bytes and seconds (from its oldest to
/// its newest packet), whichever is reached first.
public struct OutputQueueLimits: Sendable, Equatable {
  public var packets: Int
  public var bytes: Int
  public var seconds: Double

  public init(packets: Int, bytes: Int, seconds: Double) {
    precondition(packets > 0 && bytes > 0 && seconds > 0, "an output queue needs room")
    self.packets = packets
    self.bytes = bytes
    self.seconds = seconds
  }

  /// A file's: 60 s, 256 MB or 16384 packets. A disk that stalls for less than that
  /// costs the recording nothing; a longer stall holds the encoder up.
  public static let file = OutputQueueLimits(packets: 16384, bytes: 256 << 20, seconds: 60)
  /// A file written from stored media (a movie being transcoded or copied): holding
  /// the reader up loses nothing, so a few seconds are enough, and memory stays small.
  public static let fileFromStoredMedia = OutputQueueLimits(packets: 256, bytes: 32 << 20, seconds: 2)
  /// A live output's hard limit, past its late-video threshold: beyond it everything
  /// queued is dropped and the output resumes at the next keyframe.
  public static let live = OutputQueueLimits(packets: 2048, bytes: 64 << 20, seconds: 10)
}

/// The packets one output has been given but not written yet, bounded by
/// `OutputQueueLimits` and emptied under its `OutputDelivery`:
///
/// - `.everyPacket` never drops: a packet that does not fit is refused (`.full`), and
///   the publisher waits until the output's worker makes room.
/// - `.dropsLateVideo`: what is sent always decodes. Video that would wait longer than
///   the threshold is dropped up to the next keyframe (sound is kept); at the hard limit
///   everything queued goes, and video waits for the next keyframe. While the output is
///   disconnected, each new keyframe drops the GOP before it (and the sound queued with
///   it), so that a reconnected stream resumes with the newest picture.
///
/// Not thread-safe: its `PacketSubscription` touches it under its lock only.
final class OutputQueue {
  enum Offer: Equatable {
    case queued, dropped, full
  }

  let delivery: OutputDelivery
  let limits: OutputQueueLimits
  private var slots: [EncodedPacket?]
  private var head = 0
  private(set) var count = 0
  private(set) var bytes = 0
  /// Video packets among the queued ones.
  private var videoCount = 0
  /// True after a drop, until the next video keyframe.
  private(set) var waitingForKeyframe = false
  /// Video frames dropped, and the number of drops (each one or more whole GOPs).
  private(set) var droppedFrames = 0
  private(set) var droppedGroups = 0

  init(delivery: OutputDelivery, limits: OutputQueueLimits) {
    self.delivery = delivery
    self.limits = limits
    slots = Array(repeating: nil, count: limits.packets)
  }

  var isEmpty: Bool { count == 0 }

  /// Seconds between the oldest queued packet's decode time and `seconds`.
  private func lag(at seconds: Double) -> Double {
    guard count > 0, let oldest = slots[head] else { return 0 }
    return seconds - oldest.decodeSeconds
  }

  /// True if `packet` would go past a limit.
  func isFull(for packet: EncodedPacket) -> Bool {
    count == limits.packets || (count > 0 && bytes + packet.byteCount > limits.bytes)
      || lag(at: packet.decodeSeconds) > limits.seconds
  }

  /// Queues `packet`, refuses it (`.everyPacket` at a limit) or drops it, as described
  /// above.
  /// - Parameter connected: false while the output has no connection.
  func offer(_ packet: EncodedPacket, connected: Bool = true) -> Offer {
    let isVideo = packet.stream.kind == .video
    let isKeyframe = isVideo && packet.isKeyframe
    switch delivery {
    case .everyPacket:
      if isFull(for: packet) { return .full }
    case .dropsLateVideo(let threshold):
      if isVideo && waitingForKeyframe {
        guard isKeyframe else {
          droppedFrames += 1
          return .dropped
        }
        waitingForKeyframe = false
      }
      if isFull(for: packet) {
        dropAll()
        guard isKeyframe else {
          waitingForKeyframe = true
          if !isVideo { break }
          droppedFrames += 1
          return .dropped
        }
      } else if isVideo && !isKeyframe && videoCount > 0 && lag(at: packet.decodeSeconds) > threshold {
        droppedGroups += 1
        droppedFrames += 1
        waitingForKeyframe = true
        return .dropped
      } else if isKeyframe && !connected && count > 0 {
        // A disconnected output resumes with the newest picture, and the sound since.
        dropAll()
      }
    }
    append(packet)
    return .queued
  }

  /// Queues `packet` whatever the limits (a late subscriber's start from the bus's
  /// last GOP, which the bus bounds itself).
  func append(_ packet: EncodedPacket) {
    if count == slots.count { grow() }
    slots[(head + count) % slots.count] = packet
    count += 1
    bytes += packet.byteCount
    if packet.stream.kind == .video { videoCount += 1 }
  }

  private func grow() {
    var larger: [EncodedPacket?] = Array(repeating: nil, count: slots.count * 2)
    for i in 0..<count { larger[i] = slots[(head + i) % slots.count] }
    slots = larger
    head = 0
  }

  /// The oldest packet, taken out of the queue.
  func pop() -> EncodedPacket? {
    guard count > 0, let packet = slots[head] else { return nil }
    slots[head] = nil
    head = (head + 1) % slots.count
    count -= 1
    bytes -= packet.byteCount
    if packet.stream.kind == .video { videoCount -= 1 }
    return packet
  }

  /// Makes video wait for the next keyframe before anything more is queued (a joiner
  /// that has no GOP to start from).
  func waitForKeyframe() { waitingForKeyframe = true }

  /// Drops everything queued and the video that follows until the next keyframe (the
  /// connection was lost: what is sent next must start a GOP).
  func restartAtNextKeyframe() {
    if count > 0 {
      dropAll()
    } else if !waitingForKeyframe {
      droppedGroups += 1
    }
    waitingForKeyframe = true
  }

  /// Drops everything queued without counting it (the output has ended).
  func clear() {
    while pop() != nil {}
  }

  /// Drops every queued packet, counting its video frames as one drop.
  private func dropAll() {
    droppedFrames += videoCount
    droppedGroups += 1
    clear()
  }
}
