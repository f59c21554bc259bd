import Camfx
import Foundation
import Synchronization
import XCTest

/// Outputs on the packet bus, through the public API alone: an output of the test's
/// own attached and detached while a live recording runs, one that stalls, and a file
/// that stalls past its queue's bound.
final class PacketBusTests: XCTestCase {
  /// What an output of the test's own received.
  struct Received: Sendable, Equatable {
    var video: Bool
    var keyframe: Bool
    var decodeSeconds: Double
    var bytes: Int
  }

  /// An output of the test's own: counts what it gets and writes it to a movie file
  /// (so that what it got can be decoded), stalling once if asked.
  final class CountingOutput: MovieOutput, @unchecked Sendable {
    let file: MovieFileOutput
    let delivery: OutputDelivery
    let stallAtPacket: Int?
    let stallSeconds: Double
    private let log = Mutex<[Received]>([])

    init(path: String, delivery: OutputDelivery = .everyPacket, stallAtPacket: Int? = nil, stallSeconds: Double = 2) throws {
      file = try MovieFileOutput(path: path)
      self.delivery = delivery
      self.stallAtPacket = stallAtPacket
      self.stallSeconds = stallSeconds
    }

    var received: [Received] { log.withLock { $0 } }

    func prepare(streams: [EncodedStream]) throws(FFmpegError) { try file.prepare(streams: streams) }
    func write(_ packet: EncodedPacket) throws(FFmpegError) {
      let count = log.withLock { log in
        log.append(
          Received(
            video: packet.stream.kind == .video, keyframe: packet.isKeyframe, decodeSeconds: packet.decodeSeconds,
            bytes: packet.withUnsafeBytes { $0.count }))
        return log.count
      }
      if count == stallAtPacket { usleep(UInt32(stallSeconds * 1e6)) }
      try file.write(packet)
    }
    func finish() throws(FFmpegError) { try file.finish() }
    func cancel() { file.cancel() }
    var bytesWritten: Int64 { file.bytesWritten }
    var videoPacketsWritten: Int { file.videoPacketsWritten }
    var videoEndSeconds: Double { file.videoEndSeconds }
    var report: OutputReport {
      var report = file.report
      report.kind = "test"
      return report
    }
  }

  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-bus-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// A live 320x240 30 fps test pattern recorded through a writer with `outputs`, with a
  /// live recording's rings and pool (`camfx record` gives a camera or testsrc about a
  /// second of frames in front of the writer), or with the shallowest rings and a pool of
  /// `poolCapacity` frames.
  private func recording(
    seconds: Int, gop: Int, outputs: [any MovieOutput], fileQueueLimits: OutputQueueLimits = .file, poolCapacity: Int? = nil
  ) throws -> (RecordingSession<PCMBuffer>, MovieWriter) {
    let geometry = FrameGeometry(width: 320, height: 240)
    let buffering = poolCapacity == nil ? RecordingBuffering.live(geometry: geometry, framesPerSecond: 30) : .file
    let source = TestPatternSource(
      geometry: geometry, frameRate: 30, live: true, frameCount: Int64(seconds * 30),
      poolCapacity: poolCapacity ?? buffering.poolCapacity)
    var video = VideoSettings(geometry: source.geometry)
    video.fps = 30
    video.preset = "ultrafast"
    video.gop = gop
    let writer = try MovieWriter(settings: MovieSettings(video: video), outputs: outputs, fileQueueLimits: fileQueueLimits)
    var chain = FilterChain([])
    try chain.configure(input: source.geometry)
    let session = try RecordingSession<PCMBuffer>(
      input: source, chain: chain, sink: MovieWriterSink(writer: writer), buffering: buffering)
    return (session, writer)
  }

  /// The video packets of `file` as ffprobe reads them: size and keyframe flag.
  private func videoPackets(_ file: String) throws -> [(size: Int, keyframe: Bool)] {
    let text = String(
      decoding: try runTool(
        "ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=size,flags", "-of", "csv=p=0", file]),
      as: UTF8.self)
    return text.split(separator: "\n").map { line in
      let fields = line.split(separator: ",")
      return (Int(fields[0]) ?? -1, fields.count > 1 && fields[1].hasPrefix("K"))
    }
  }

  /// Frames ffmpeg decodes from `file`, and what it said while decoding (nothing, for
  /// a file without holes).
  private func decode(_ file: String) throws -> (frames: Int, complaints: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-i", file, "-f", "framemd5", "-"]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (lines.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, complaints)
  }

  func testAnOutputAttachedLateStartsAtTheLastKeyframeAndGetsAWholeRunUntilItDetaches() throws {
    let main = try MovieFileOutput(path: path("main.mp4"))
    let (session, writer) = try recording(seconds: 6, gop: 30, outputs: [main])
    session.start()
    usleep(2_000_000)
    let late = try CountingOutput(path: path("late.mp4"))
    let subscription = try writer.bus.subscribe(late)
    usleep(2_000_000)
    XCTAssertNil(writer.bus.unsubscribe(subscription))
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 180)

    let received = late.received
    XCTAssertGreaterThan(received.count, 55, "about 2 s of packets and the GOP before them")
    XCTAssertEqual(received.first?.video, true)
    XCTAssertEqual(received.first?.keyframe, true, "it starts on a keyframe")
    let times = received.map(\.decodeSeconds)
    for (a, b) in zip(times, times.dropFirst()) { XCTAssertEqual(b - a, 1.0 / 30, accuracy: 1e-6, "no packet missing or doubled") }

    // What it got decodes, and is exactly the main file's packets over the same span;
    // the main file holds every frame.
    let (frames, complaints) = try decode(path("late.mp4"))
    XCTAssertEqual(frames, received.count)
    XCTAssertEqual(complaints, "")
    let mainPackets = try videoPackets(path("main.mp4"))
    XCTAssertEqual(mainPackets.count, 180)
    let lateSizes = received.map(\.bytes)
    let start = try XCTUnwrap(
      (0...(mainPackets.count - lateSizes.count)).first { k in
        mainPackets[k..<(k + lateSizes.count)].map(\.size) == lateSizes
      }, "the late output's packets are a run of the main file's")
    XCTAssertTrue(mainPackets[start].keyframe)
    XCTAssertEqual(start % 30, 0, "at a keyframe of the 30-frame GOPs")
  }

  func testAStallingOutputCostsTheFileAndTheLiveOutputNothing() throws {
    let main = try MovieFileOutput(path: path("main.mp4"))
    try FileManager.default.createDirectory(atPath: path("hls"), withIntermediateDirectories: true)
    let hls = try LiveStreamOutput(destination: try StreamDestination(parsing: path("hls/index.m3u8")))
    let stalling = try CountingOutput(
      path: path("stalling.mp4"), delivery: .dropsLateVideo(afterSeconds: 0.5), stallAtPacket: 10, stallSeconds: 2)
    let (session, writer) = try recording(seconds: 4, gop: 15, outputs: [main, hls, stalling])
    session.start()
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 120)
    XCTAssertEqual(summary.droppedTotal, 0, "the source lost nothing")
    XCTAssertEqual(try videoPackets(path("main.mp4")).count, 120)
    let reports = writer.outputReports
    XCTAssertEqual(reports.count, 3)
    XCTAssertEqual(reports[1].droppedFrames, 0, "the HLS output lost nothing: \(reports[1])")
    XCTAssertEqual(reports[1].videoFrames, 120)
    XCTAssertGreaterThan(reports[2].droppedFrames, 0, "the stalling output dropped late video: \(reports[2])")

    // The stalled output went on at a keyframe, and what it wrote decodes.
    let video = stalling.received.filter(\.video)
    let resumed = try XCTUnwrap(
      zip(video, video.dropFirst()).first { $1.decodeSeconds - $0.decodeSeconds > 1.5 / 30 }?.1, "a gap after the stall")
    XCTAssertTrue(resumed.keyframe, "it resumed at a keyframe")
    let (frames, complaints) = try decode(path("stalling.mp4"))
    XCTAssertEqual(frames, video.count)
    XCTAssertEqual(complaints, "")
  }

  /// The same stall in an output beside a live recording that must not hold it up (an
  /// event clip): it ends alone, keeping what it wrote, and the recording loses nothing.
  /// (With a live recording's rings: the 2 s stall, held on to, would overflow their
  /// second; a pool of 4 and two-frame rings lost a frame to a busy machine's hiccup.)
  func testAnOutputBesideALiveRecordingThatFallsBehindEndsAloneAndHoldsNothingUp() throws {
    let main = try MovieFileOutput(path: path("main.mp4"))
    let (session, writer) = try recording(seconds: 4, gop: 15, outputs: [main])
    let stalling = try CountingOutput(path: path("beside.mp4"), stallAtPacket: 20, stallSeconds: 2)
    let beside = try writer.bus.subscribe(
      stalling, limits: OutputQueueLimits(packets: 1000, bytes: 16 << 20, seconds: 0.5), failureEndsRecording: false,
      waitsWhenFull: false)
    session.start()
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 120)
    XCTAssertEqual(summary.droppedTotal, 0, "the live source lost nothing: \(summary.dropped)")
    XCTAssertEqual(try videoPackets(path("main.mp4")).count, 120)
    XCTAssertTrue(beside.hasEnded)
    XCTAssertTrue(beside.failure?.description.contains("it does not keep up") == true, "\(String(describing: beside.failure))")
    // What it wrote before it fell behind is kept, and decodes.
    let (frames, complaints) = try decode(path("beside.mp4"))
    XCTAssertEqual(frames, stalling.received.filter(\.video).count)
    XCTAssertGreaterThanOrEqual(frames, 15)
    XCTAssertLessThan(frames, 120)
    XCTAssertEqual(complaints, "")
  }

  func testAFileThatStallsPastItsBoundHoldsTheEncoderUpAndTheSourceCountsTheDrops() throws {
    let stalling = try CountingOutput(path: path("stalling.mp4"), stallAtPacket: 20, stallSeconds: 2)
    let (session, writer) = try recording(
      seconds: 4, gop: 15, outputs: [stalling],
      fileQueueLimits: OutputQueueLimits(packets: 1000, bytes: 16 << 20, seconds: 0.5), poolCapacity: 4)
    session.start()
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertNil(summary.error)
    let report = try XCTUnwrap(writer.outputReports.first)
    XCTAssertGreaterThanOrEqual(report.stalls ?? 0, 1, "the stall is reported: \(report)")
    XCTAssertGreaterThan(report.stalledSeconds ?? 0, 1)
    XCTAssertGreaterThan(summary.droppedTotal, 10, "the live source dropped what the encoder could not take: \(summary.dropped)")
    XCTAssertEqual(summary.framesIn, summary.framesOut + summary.droppedTotal)
    // The file has every frame that was encoded, and no hole inside a GOP.
    XCTAssertEqual(stalling.received.filter(\.video).count, summary.framesOut)
    let (frames, complaints) = try decode(path("stalling.mp4"))
    XCTAssertEqual(frames, summary.framesOut)
    XCTAssertEqual(complaints, "")
  }

  /// While a file's full queue holds the encoder up, none of the writer's locks is held:
  /// a figure read on another thread (under the video encoder's lock) is answered at
  /// once, not when the disk comes back; and the file still gets every packet, in order.
  func testAFileThatHoldsTheEncoderUpHoldsNoLockOfTheWriters() throws {
    let stalling = try CountingOutput(path: path("stalling.mp4"), stallAtPacket: 5, stallSeconds: 3)
    var video = VideoSettings(width: 64, height: 48)
    video.fps = 30
    video.preset = "ultrafast"
    let writer = try MovieWriter(
      settings: MovieSettings(video: video), outputs: [stalling],
      fileQueueLimits: OutputQueueLimits(packets: 2, bytes: 16 << 20, seconds: 60))
    let frames = 40
    let appending = DispatchGroup()
    let failure = Mutex<String?>(nil)
    DispatchQueue.global().async(group: appending) {
      do {
        for i in 0..<frames {
          var frame = PixelBuffer(width: 64, height: 48)
          frame.fill(BGRA(r: UInt8(i * 6), g: 0, b: 0))
          frame.presentationTime = MediaTime(value: Int64(i), timescale: 30)
          try writer.append(frame)
        }
        try writer.finish()
      } catch {
        failure.withLock { $0 = "\(error)" }
      }
    }
    // The output stalls at its 5th packet; two more fill its queue, and the encoder waits.
    let deadline = Date().addingTimeInterval(10)
    while stalling.received.count < 5, Date() < deadline { usleep(10_000) }
    usleep(500_000)
    XCTAssertEqual(appending.wait(timeout: .now()), .timedOut, "the encoder waits for the stalled file")
    let answered = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      _ = writer.videoFramesAppended
      answered.signal()
    }
    XCTAssertEqual(
      answered.wait(timeout: .now() + 1.5), .success, "the video encoder's lock is free while the encoder waits")
    appending.wait()
    XCTAssertNil(failure.withLock { $0 })
    let received = stalling.received.filter(\.video)
    XCTAssertEqual(received.count, frames)
    XCTAssertEqual(received.map(\.decodeSeconds), received.map(\.decodeSeconds).sorted(), "in the order made")
    let (decoded, complaints) = try decode(path("stalling.mp4"))
    XCTAssertEqual(decoded, frames)
    XCTAssertEqual(complaints, "")
  }

  /// The live view's muxer, attached mid-recording: an init segment whose `avcC` says
  /// what the MIME type says, then one fragment per frame from the last keyframe on,
  /// each behind its `prft`; together they decode without a complaint, at the
  /// recording's times (one second later).
  func testTheLiveViewsMuxerMakesAFragmentPerFrameFromTheLastKeyframe() throws {
    let main = try MovieFileOutput(path: path("main.mp4"))
    let (session, writer) = try recording(seconds: 4, gop: 30, outputs: [main])
    let initSegment = Mutex<[UInt8]>([])
    let fragments = Mutex<[LiveFragment]>([])
    let live = try LiveFragmentOutput(
      captureNanoseconds: { Int64($0 * 1e9) + 1_700_000_000_000_000_000 },
      onInitSegment: { bytes in initSegment.withLock { $0 = bytes } },
      onFragment: { fragment in fragments.withLock { $0.append(fragment) } })
    session.start()
    usleep(1_600_000)
    let subscription = try writer.bus.subscribe(live, failureEndsRecording: false, waitsWhenFull: false)
    usleep(1_500_000)
    XCTAssertNil(writer.bus.unsubscribe(subscription))
    XCTAssertNil(session.waitUntilFinished(statusInterval: 0.05).error)

    let header = initSegment.withLock { $0 }
    let received = fragments.withLock { $0 }
    XCTAssertGreaterThan(received.count, 45, "the GOP before it and 1.5 s more")
    XCTAssertEqual(received.first?.isKeyframe, true)
    XCTAssertEqual(received.first?.decodeSeconds ?? -1, 1.0, accuracy: 1e-6, "it starts on the last keyframe")
    for (a, b) in zip(received, received.dropFirst()) { XCTAssertEqual(b.decodeSeconds - a.decodeSeconds, 1.0 / 30, accuracy: 1e-6) }
    for fragment in received {
      XCTAssertEqual(String(decoding: fragment.bytes[4..<8], as: UTF8.self), "prft")
      XCTAssertEqual(fragment.capturedNanoseconds, Int64(fragment.decodeSeconds * 1e9) + 1_700_000_000_000_000_000)
    }
    // The MIME type's avc1.PPCCLL against the avcC the muxer wrote.
    let avcC = try XCTUnwrap(header.firstRange(of: Array("avcC".utf8)))
    let fromMuxer = header[(avcC.upperBound + 1)...(avcC.upperBound + 3)].map { String(format: "%02x", $0) }.joined()
    XCTAssertEqual(LiveFragmentOutput.mimeType(for: writer.bus.streams), "video/mp4; codecs=\"avc1.\(fromMuxer)\"")

    let file = path("live.mp4")
    try Data(header + received.flatMap(\.bytes)).write(to: URL(fileURLWithPath: file))
    let decoded = try decode(file)
    XCTAssertEqual(decoded.complaints, "")
    XCTAssertEqual(decoded.frames, received.count)
    let firstDTS = String(
      decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "packet=dts_time", "-of", "csv=p=0", "-read_intervals", "%+#1", file]),
      as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(Double(firstDTS) ?? -1, 2.0, accuracy: 1e-3, "the recording's time of its first frame, one second later")
  }
}
