import CFFmpeg
import CamfxFFmpeg
import XCTest

@testable import CamfxMedia

/// An output's queue on the packet bus: a live one drops late video up to the next
/// keyframe and keeps the sound, so what it sends always decodes; a file's never drops
/// and refuses what does not fit instead (the publisher then waits). Checked with
/// packets of a 30 fps stream with a keyframe every 10 frames and an audio packet after
/// each video one.
final class OutputQueueTests: XCTestCase {
  private var video: EncodedStream!
  private var audio: EncodedStream!

  override func setUpWithError() throws {
    var settings = VideoSettings(width: 64, height: 64)
    settings.preset = "ultrafast"
    let encoder = try VideoEncoder(settings: settings, globalHeader: true)
    video = try EncodedStream(kind: .video, index: 0, encoder: encoder.pointer)
    let audioEncoder = try AudioEncoder(settings: AudioSettings(), globalHeader: true)
    audio = try EncodedStream(kind: .audio, index: 1, encoder: audioEncoder.context.pointer)
  }

  private func packet(_ stream: EncodedStream, dts: Int64, size: Int32, keyframe: Bool = false) throws -> EncodedPacket {
    let p = try FFmpegPacket()
    XCTAssertEqual(av_new_packet(p.pointer, size), 0)
    p.pointer.pointee.dts = dts
    p.pointer.pointee.pts = dts
    p.pointer.pointee.flags = keyframe ? AV_PKT_FLAG_KEY : 0
    return try EncodedPacket(stream: stream, movingFrom: p.pointer)
  }

  /// Offers video frame `n` (and the audio that goes with it) to `queue`; returns what
  /// became of the video.
  @discardableResult
  private func offer(frame n: Int, to queue: OutputQueue, connected: Bool = true, size: Int32 = 100) throws
    -> OutputQueue.Offer
  {
    let result = queue.offer(
      try packet(video, dts: Int64(n) * 3000, size: size, keyframe: n % 10 == 0), connected: connected)  // 1/90000
    _ = queue.offer(try packet(audio, dts: Int64(n) * 1600, size: 10), connected: connected)  // 1/48000
    return result
  }

  /// The queued packets, oldest first (emptying the queue): video frame numbers, and
  /// -1 - n for audio packet n.
  private func drain(_ queue: OutputQueue) -> [Int] {
    var out: [Int] = []
    while let p = queue.pop() {
      out.append(p.stream.kind == .video ? Int(p.pointer.pointee.dts / 3000) : -1 - Int(p.pointer.pointee.dts / 1600))
    }
    return out
  }

  private func drainVideo(_ queue: OutputQueue) -> [Int] { drain(queue).filter { $0 >= 0 } }

  func testALiveQueueThatKeepsUpLosesNothing() throws {
    let queue = OutputQueue(delivery: .live, limits: .live)
    for n in 0..<100 {
      XCTAssertEqual(try offer(frame: n, to: queue), .queued)
      if n % 7 == 6 { _ = drain(queue) }
    }
    XCTAssertEqual(queue.droppedFrames, 0)
    XCTAssertEqual(queue.droppedGroups, 0)
  }

  func testAFullLiveQueueDropsWholeGOPsAndResumesAtAKeyframe() throws {
    // Room for 30 packets: full at frame 15. Frames 0-15 go, and 16-19 while it waits
    // for frame 20; the sound from the drop on is kept.
    let queue = OutputQueue(delivery: .live, limits: OutputQueueLimits(packets: 30, bytes: 1 << 20, seconds: 60))
    for n in 0..<30 { try offer(frame: n, to: queue) }
    let sent = drain(queue)
    XCTAssertEqual(sent.filter { $0 >= 0 }, Array(20..<30), "the newest GOP, whole")
    XCTAssertEqual(sent.filter { $0 < 0 }.map { -1 - $0 }, Array(15..<30), "the sound since the drop")
    XCTAssertEqual(queue.droppedFrames, 20)
    XCTAssertEqual(queue.droppedGroups, 1)
  }

  func testLateVideoIsDroppedToTheNextKeyframeAndTheSoundKept() throws {
    let queue = OutputQueue(delivery: .dropsLateVideo(afterSeconds: 0.5), limits: .live)
    // 25 frames with nothing sent: the queue lags more than 0.5 s at frame 16, so 16-19
    // are dropped; what was queued stays. The keyframe at 20 is taken, and as the queue
    // still lags, the frames after it are dropped again.
    for n in 0..<25 { try offer(frame: n, to: queue) }
    let sent = drain(queue)
    XCTAssertEqual(sent.filter { $0 >= 0 }, Array(0..<16) + [20])
    XCTAssertEqual(sent.filter { $0 < 0 }.count, 25, "every audio packet")
    XCTAssertEqual(queue.droppedFrames, 8)
    XCTAssertEqual(queue.droppedGroups, 2)
  }

  func testWhileDisconnectedOnlyTheNewestGOPWaits() throws {
    let queue = OutputQueue(delivery: .live, limits: .live)
    for n in 0..<45 { try offer(frame: n, to: queue, connected: false) }
    XCTAssertEqual(drainVideo(queue), Array(40..<45))
    // A lost connection: what follows waits for the next keyframe.
    for n in 45..<48 { try offer(frame: n, to: queue) }
    queue.restartAtNextKeyframe()
    for n in 48..<53 { try offer(frame: n, to: queue) }
    XCTAssertEqual(drainVideo(queue), [50, 51, 52])
  }

  /// Sound the audio encoder hands out before the video encoder's first picture (its
  /// delay) belongs with that picture: it stays.
  func testSoundBeforeTheFirstPictureWaitsWithIt() throws {
    let queue = OutputQueue(delivery: .live, limits: .live)
    for k in 0..<4 { XCTAssertEqual(queue.offer(try packet(audio, dts: Int64(k) * 1024, size: 10)), .queued) }
    XCTAssertEqual(try offer(frame: 0, to: queue), .queued)
    XCTAssertEqual(drain(queue).map { $0 >= 0 }, [false, false, false, false, true, false])
  }

  /// A file's queue never drops: at its limit it refuses a packet (the publisher waits)
  /// and takes it once a packet has gone.
  func testAFilesQueueRefusesInsteadOfDropping() throws {
    let queue = OutputQueue(delivery: .everyPacket, limits: OutputQueueLimits(packets: 1000, bytes: 1 << 20, seconds: 1))
    var refused: Int? = nil
    for n in 0..<60 where refused == nil {
      if try offer(frame: n, to: queue) == .full { refused = n }
    }
    // 1 s of packets: frame 31 lies more than a second after frame 0.
    XCTAssertEqual(refused, 31)
    XCTAssertEqual(queue.droppedFrames, 0)
    let late = try packet(video, dts: 31 * 3000, size: 100)
    XCTAssertTrue(queue.isFull(for: late))
    _ = queue.pop()
    _ = queue.pop()
    XCTAssertEqual(queue.offer(late), .queued)
    XCTAssertEqual(drainVideo(queue), Array(1..<32), "every frame, in order")
  }
}
