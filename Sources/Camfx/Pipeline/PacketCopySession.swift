import CamfxCapture
import CamfxCore
import CamfxMedia
import Synchronization

/// `--video-codec copy`: a movie's packets (`MoviePacketReader`) or a camera's JPEGs
/// (`CameraPacketSource`) go to the outputs as they are, with no decoding and no
/// encoding (`AVAssetExportPresetPassthrough`), cut by the usual limits. Timestamps are
/// shifted so the recording starts at zero. The packets go on a `PacketBus`, as an
/// encoder's do, so the outputs have the same queues and workers either way.
///
/// `@unchecked Sendable`: `run()` uses the source on one thread; `stop()` only sets an
/// atomic.
public final class PacketCopySession: RecordingJob, @unchecked Sendable {
  public let source: any PacketSource
  public let outputs: [any MovieOutput]
  public let limits: RecordingLimits
  /// Where the copied packets go; more outputs can attach while it runs.
  public let bus: PacketBus
  /// The outputs given to `init`, attached.
  private let subscriptions: [PacketSubscription]
  private let stopRequested = Atomic<Bool>(false)
  /// Video packets copied so far.
  public let videoPackets = Atomic<Int>(0)

  /// Attaches every output to the bus (telling it the streams).
  /// - Parameter events: told, one line each, when an output reconnects or ends.
  /// - Throws: `FFmpegError` when an output's container cannot hold a stream.
  public init(
    source: any PacketSource, outputs: [any MovieOutput], limits: RecordingLimits = RecordingLimits(),
    events: (@Sendable (String) -> Void)? = nil
  ) throws {
    self.source = source
    self.outputs = outputs
    self.limits = limits
    bus = PacketBus(
      streams: source.streams, fileQueueLimits: source.isLive ? .file : .fileFromStoredMedia, events: events)
    for output in outputs { try bus.subscribe(output) }
    subscriptions = bus.subscriptions
  }

  /// The copy `configuration` describes (its video codec `copy`): `source`'s packets,
  /// or when nil, a movie's (`.movie`) or a camera's H.264 or MJPEG (`.live`, the first
  /// camera when none is named), to its outputs and its own, within its limits.
  /// - Parameter report: told what a camera adjusted, and when an output reconnects or
  ///   ends, one line each.
  /// - Throws: `RecordingOptionError` for a source with no packets to copy (testsrc, a
  ///   PNG), and what opening the source and the outputs throws.
  public convenience init(
    _ configuration: RecordingPipeline.Configuration, source: (any PacketSource)? = nil,
    report: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    let packets: any PacketSource
    if let source {
      packets = source
    } else {
      switch configuration.source {
      case .movie(let path):
        packets = try MoviePacketReader(path: path, audio: configuration.sound != .none)
      case .live(let spec):
        packets = try Self.openPackets(spec, configuration, report: report)
      case .own:
        throw RecordingOptionError("video codec 'copy' copies a camera's or a movie's packets: give your source's as a PacketSource")
      case .composition:
        throw RecordingOptionError("a composition is copied by passthrough: give its PassthroughComposition as the source")
      }
    }
    let outputs =
      try (configuration.outputs?.makeOutputs(file: configuration.archivedFile, segments: configuration.archivedSegments) ?? [])
      + configuration.ownOutputs
    try self.init(source: packets, outputs: outputs, limits: configuration.limits, events: report)
  }

  /// `composition`'s items' packets joined as they are (`compose --preset passthrough`),
  /// to `configuration`'s outputs; a cut that snaps to other keyframes than asked is
  /// told to `report`.
  /// - Throws: `RecordingOptionError` when the items cannot pass through (fades, music,
  ///   streams that differ), and what opening them and the outputs throws.
  public convenience init(
    passthrough composition: Composition, _ configuration: RecordingPipeline.Configuration, audio: Bool = true,
    report: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    try self.init(configuration, source: try PassthroughComposition(composition, audio: audio, report: report), report: report)
  }

  /// The packets a copy records: a live source's own (a camera's H.264 or MJPEG, at the
  /// configuration's size and rate).
  private static func openPackets(
    _ spec: SourceSpec?, _ configuration: RecordingPipeline.Configuration, report: @escaping @Sendable (String) -> Void
  ) throws -> any PacketSource {
    let spec = try spec ?? SourceSpec.defaultSource().spec
    let request = LiveSourceRequest(
      size: configuration.size, framesPerSecond: configuration.framesPerSecond, camera: configuration.camera, report: report)
    guard let packets = try spec.openPackets(request) else {
      throw RecordingOptionError(
        "--video-codec copy records a camera's or a movie's own compressed stream; --source \(spec) has none (use --input FILE or a camera)")
    }
    return packets
  }

  /// Ends the copy after the current packet (a signal).
  public func stop() { stopRequested.store(true, ordering: .releasing) }

  /// The same as `stop()`: a copy has no encoder to drain.
  public func stopAtOnce() { stop() }

  /// Ends every output at once (a copy that never ran).
  public func cancel() { bus.cancel() }

  public var outputReports: [OutputReport] { subscriptions.map(\.report) }
  public var stopRequest: String? { subscriptions.lazy.compactMap(\.stopRequest).first }
  public var videoPath: String { "\(source.streams[0].codecName) → copy" }

  public func run(statusInterval: Double, status: (RecordingStatistics.Snapshot, Double) -> Void) throws -> RecordingSummary {
    run()
  }

  /// Copies until the end of the movie, a limit or `stop()`, and finishes the outputs.
  public func run() -> RecordingSummary {
    let started = MonotonicClock.nanoseconds()
    var reason = StopReason.endOfInput
    var failure: (any Error)?
    var offset: MediaTime?
    var firstVideo: Double?
    var lastVideoEnd = 0.0
    var frames = 0
    do {
      while let packet = try source.nextPacket() {
        if stopRequested.load(ordering: .acquiring) {
          reason = .interrupted
          break
        }
        if offset == nil { offset = packet.decodeTime }
        packet.offset(by: .zero - (offset ?? .zero))
        if packet.stream.kind == .video {
          let pts = packet.presentationSeconds
          if firstVideo == nil { firstVideo = pts }
          if let limit = limits.duration, pts - (firstVideo ?? 0) >= limit.seconds {
            reason = .duration
            break
          }
          frames += 1
          lastVideoEnd = max(lastVideoEnd, pts + packet.durationSeconds)
          videoPackets.store(frames, ordering: .relaxed)
        }
        try bus.publish(packet)
        if packet.stream.kind == .video {
          if let limit = limits.frames, frames >= limit {
            reason = .frames
            break
          }
          if let limit = limits.bytes, largestOutputBytes >= limit {
            reason = .maxSize
            break
          }
          let attached = bus.subscriptions
          if !attached.isEmpty, attached.allSatisfy(\.hasEnded) {
            reason = .outputsEnded
            break
          }
          if attached.contains(where: { $0.stopRequest != nil }) {
            reason = .minFree
            break
          }
        }
      }
      try bus.finish()
    } catch {
      failure = error
      reason = .failed
      bus.cancel()
    }
    // What the files hold (a file stops muxing at --max-size): the figures are theirs.
    let read = frames
    let files = subscriptions.filter { !$0.delivery.isLive }
    if !files.isEmpty {
      frames = files.map(\.videoPacketsWritten).min() ?? frames
      lastVideoEnd = min(lastVideoEnd, files.map(\.videoEndSeconds).min() ?? lastVideoEnd)
    }
    var summary = RecordingSummary(
      framesIn: read + source.framesSkippedLate + source.framesCorrupt, framesOut: frames,
      dropped: [
        DropReason.late.rawValue: source.framesSkippedLate, DropReason.outOfBuffers.rawValue: 0,
        DropReason.corrupt.rawValue: source.framesCorrupt,
      ],
      audioChunks: 0, durationSeconds: max(0, lastVideoEnd - (firstVideo ?? 0)),
      elapsedSeconds: Double(MonotonicClock.nanoseconds() - started) / 1e9, bytes: bytesWritten, stopReason: reason,
      error: failure.map { "\($0)" })
    summary.videoPath = "\(source.streams[0].codecName) → copy"
    summary.packetBus = RecordingSummary.PacketBusSummary(bus.figures)
    summary.bgraFrames = 0
    if let figures = files.first?.output.fileFigures { summary.add(figures) }
    summary.add(measuredOutputs: (files.isEmpty ? subscriptions : files).map(\.report))
    if subscriptions.count > 1 || subscriptions.allSatisfy(\.delivery.isLive) {
      summary.outputs = subscriptions.map(\.report)
    }
    summary.failWhenNothingWasKept(outputs: subscriptions.map(\.report), framesEncoded: read)
    return summary
  }

  /// The files' bytes (the live outputs' when there is no file).
  private var bytesWritten: Int64 { measuredSubscriptions.reduce(0) { $0 + $1.bytesWritten } }

  /// The largest file's bytes (live output's when there is no file): what `--max-size`
  /// holds each file to.
  private var largestOutputBytes: Int64 { measuredSubscriptions.map(\.bytesWritten).max() ?? 0 }

  /// The files (the live outputs when there is no file).
  private var measuredSubscriptions: [PacketSubscription] {
    let all = subscriptions
    let files = all.filter { !$0.delivery.isLive }
    return files.isEmpty ? all : files
  }
}
