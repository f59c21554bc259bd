import CFFmpeg

/// The packets a live output has taken from the encoders but not sent yet: a ring of
/// preallocated `AVPacket`s that reference the encoders' data (`av_packet_ref`, no
/// copy), bounded in packets, bytes and seconds.
///
/// What does not fit is dropped in whole GOPs, so that what is sent always decodes:
/// when the queue is full, or its oldest packet lags the newest by more than
/// `maximumLagSeconds`, everything queued is dropped and video waits for the next
/// keyframe (audio is dropped with it). While the output is disconnected, each new
/// keyframe drops the GOP before it (and the sound queued with that GOP), so that a reconnected stream resumes with the
/// newest picture.
///
/// `@unchecked Sendable`: not thread-safe in itself; its one owner
/// (`LiveStreamOutput`) only touches it under a lock.
final class PacketQueue: @unchecked Sendable {
  struct Limits: Sendable {
    var packets = 1024
    var bytes = 32 << 20
    var maximumLagSeconds = 5.0
  }

  let limits: Limits
  private var slots: [FFmpegPacket] = []
  private var slotStreams: [EncodedStream?]
  private var slotSeconds: [Double]
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

  init(limits: Limits = Limits()) throws(FFmpegError) {
    self.limits = limits
    slots.reserveCapacity(limits.packets)
    for _ in 0..<limits.packets { slots.append(try FFmpegPacket()) }
    slotStreams = Array(repeating: nil, count: limits.packets)
    slotSeconds = Array(repeating: 0, count: limits.packets)
  }

  var isEmpty: Bool { count == 0 }

  /// Takes a reference to `packet`, or drops it (and what is queued) as described above.
  /// - Parameter connected: false while the output has no connection.
  /// - Returns: true if the packet was queued.
  @discardableResult
  func offer(_ packet: EncodedPacket, connected: Bool) throws(FFmpegError) -> Bool {
    let isVideo = packet.stream.kind == .video
    let isKeyframe = isVideo && packet.isKeyframe
    if waitingForKeyframe {
      guard isKeyframe else {
        if isVideo { droppedFrames += 1 }
        return false
      }
      waitingForKeyframe = false
    }
    let seconds = packet.decodeSeconds
    let size = Int(packet.pointer.pointee.size)
    let full = count == limits.packets || bytes + size > limits.bytes
      || (count > 0 && seconds - slotSeconds[head] > limits.maximumLagSeconds)
    // Only a GOP is worth dropping for a newer one: sound queued before the stream's
    // first picture (the encoder's delay) plays with it.
    if full || (isKeyframe && !connected && videoCount > 0) {
      dropAll()
      if !isKeyframe {
        waitingForKeyframe = true
        if isVideo { droppedFrames += 1 }
        return false
      }
    }
    let tail = (head + count) % limits.packets
    try check(av_packet_ref(slots[tail].pointer, packet.pointer), "copying a packet")
    slotStreams[tail] = packet.stream
    slotSeconds[tail] = seconds
    count += 1
    bytes += size
    if isVideo { videoCount += 1 }
    return true
  }

  /// Moves the oldest packet into `packet` (which must be empty) and returns its stream.
  func pop(into packet: UnsafeMutablePointer<AVPacket>) -> EncodedStream? {
    guard count > 0, let stream = slotStreams[head] else { return nil }
    let slot = slots[head].pointer
    bytes -= Int(slot.pointee.size)
    if stream.kind == .video { videoCount -= 1 }
    av_packet_move_ref(packet, slot)
    slotStreams[head] = nil
    head = (head + 1) % limits.packets
    count -= 1
    return stream
  }

  /// Drops everything queued and what follows until the next video keyframe (the
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
    while count > 0 {
      av_packet_unref(slots[head].pointer)
      slotStreams[head] = nil
      head = (head + 1) % limits.packets
      count -= 1
    }
    bytes = 0
    videoCount = 0
  }

  /// Drops every queued packet, counting its video frames as one drop.
  private func dropAll() {
    droppedFrames += videoCount
    droppedGroups += 1
    clear()
  }
}
