import CFFmpeg
import XCTest

@testable import CamfxMedia

/// A live output's queue drops what it cannot send in whole GOPs, so what it sends
/// always starts at a keyframe; checked with packets of a 30 fps stream with a
/// keyframe every 10 frames and an audio packet after each video one.
final class PacketQueueTests: XCTestCase {
  private var video: EncodedStream!
  private var audio: EncodedStream!
  private var packet: FFmpegPacket!

  override func setUpWithError() throws {
    var settings = VideoSettings(width: 64, height: 64)
    settings.preset = "ultrafast"
    let encoder = try VideoEncoder(settings: settings, globalHeader: true)
    video = try EncodedStream(kind: .video, index: 0, encoder: encoder.pointer)
    let audioEncoder = try AudioEncoder(settings: AudioSettings(), globalHeader: true)
    audio = try EncodedStream(kind: .audio, index: 1, encoder: audioEncoder.context.pointer)
    packet = try FFmpegPacket()
  }

  /// Offers video frame `n` (and the audio that goes with it) to `queue`.
  private func offer(frame n: Int, to queue: PacketQueue, connected: Bool = true, size: Int32 = 100) throws -> Bool {
    let p = packet.pointer
    av_packet_unref(p)
    XCTAssertEqual(av_new_packet(p, size), 0)
    p.pointee.dts = Int64(n) * 3000  // 1/90000 at 30 fps
    p.pointee.pts = p.pointee.dts
    p.pointee.flags = n % 10 == 0 ? AV_PKT_FLAG_KEY : 0
    let queued = try queue.offer(EncodedPacket(stream: video, pointer: p), connected: connected)
    av_packet_unref(p)
    XCTAssertEqual(av_new_packet(p, 10), 0)
    p.pointee.dts = Int64(n) * 1600  // 1/48000
    p.pointee.pts = p.pointee.dts
    _ = try queue.offer(EncodedPacket(stream: audio, pointer: p), connected: connected)
    return queued
  }

  /// The video frame numbers waiting in `queue`, oldest first (emptying it).
  private func drainVideo(_ queue: PacketQueue) -> [Int] {
    let out = av_packet_alloc()!
    defer {
      var o: UnsafeMutablePointer<AVPacket>? = out
      av_packet_free(&o)
    }
    var frames: [Int] = []
    while let stream = queue.pop(into: out) {
      if stream.kind == .video { frames.append(Int(out.pointee.dts / 3000)) }
      av_packet_unref(out)
    }
    return frames
  }

  func testAQueueThatKeepsUpLosesNothing() throws {
    let queue = try PacketQueue()
    for n in 0..<100 {
      XCTAssertTrue(try offer(frame: n, to: queue))
      if n % 7 == 6 { _ = drainVideo(queue) }
    }
    XCTAssertEqual(queue.droppedFrames, 0)
    XCTAssertEqual(queue.droppedGroups, 0)
  }

  func testAFullQueueDropsWholeGOPsAndResumesAtAKeyframe() throws {
    // Room for 25 packets: 12 frames with their audio.
    let queue = try PacketQueue(limits: PacketQueue.Limits(packets: 25, bytes: 1 << 20, maximumLagSeconds: 60))
    // Full at frame 12's audio: frames 0-12 go, and 13-19 while it waits for frame 20.
    for n in 0..<30 { _ = try offer(frame: n, to: queue) }
    let sent = drainVideo(queue)
    XCTAssertEqual(sent.first.map { $0 % 10 }, 0, "starts at a keyframe: \(sent)")
    XCTAssertEqual(sent, Array(20..<30), "the newest GOP, whole")
    XCTAssertEqual(queue.droppedFrames, 20)
    XCTAssertEqual(queue.droppedGroups, 1)
  }

  func testLagBeyondTheLimitDropsToTheNextKeyframe() throws {
    let queue = try PacketQueue(limits: PacketQueue.Limits(packets: 1024, bytes: 1 << 20, maximumLagSeconds: 0.5))
    // 25 frames (0.83 s) with nothing sent: the queue lags more than 0.5 s at frame 16.
    for n in 0..<25 { _ = try offer(frame: n, to: queue) }
    XCTAssertEqual(drainVideo(queue), Array(20..<25))
    XCTAssertEqual(queue.droppedFrames, 20)
  }

  func testWhileDisconnectedOnlyTheNewestGOPWaits() throws {
    let queue = try PacketQueue()
    for n in 0..<45 { _ = try offer(frame: n, to: queue, connected: false) }
    XCTAssertEqual(drainVideo(queue), Array(40..<45))
    // A lost connection: what follows waits for the next keyframe.
    for n in 45..<48 { _ = try offer(frame: n, to: queue) }
    queue.restartAtNextKeyframe()
    for n in 48..<53 { _ = try offer(frame: n, to: queue) }
    XCTAssertEqual(drainVideo(queue), [50, 51, 52])
  }

  /// Sound the audio encoder hands out before the video encoder's first picture (its
  /// delay) while the output still connects belongs with that picture: it stays.
  func testSoundBeforeTheFirstPictureWaitsWithIt() throws {
    let queue = try PacketQueue()
    let p = packet.pointer
    for k in 0..<4 {
      av_packet_unref(p)
      XCTAssertEqual(av_new_packet(p, 10), 0)
      p.pointee.dts = Int64(k) * 1024
      p.pointee.pts = p.pointee.dts
      XCTAssertTrue(try queue.offer(EncodedPacket(stream: audio, pointer: p), connected: false))
    }
    XCTAssertTrue(try offer(frame: 0, to: queue, connected: false))
    let out = av_packet_alloc()!
    defer {
      var o: UnsafeMutablePointer<AVPacket>? = out
      av_packet_free(&o)
    }
    var kinds: [EncodedStream.Kind] = []
    while let stream = queue.pop(into: out) {
      kinds.append(stream.kind)
      av_packet_unref(out)
    }
    XCTAssertEqual(kinds, [.audio, .audio, .audio, .audio, .video, .audio])
  }
}
