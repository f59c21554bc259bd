import CamfxCore
import CamfxMedia
import Synchronization

/// `--video-codec copy`: a movie's packets (`MoviePacketReader`) or a camera's JPEGs
/// (`CameraPacketSource`) go to the outputs as they are, with no decoding and no
/// encoding (`AVAssetExportPresetPassthrough`), cut by the usual limits. Timestamps are
/// shifted so the recording starts at zero.
///
/// `@unchecked Sendable`: `run()` uses the source and the outputs on one thread;
/// `stop()` only sets an atomic.
public final class PacketCopySession: @unchecked Sendable {
  public let source: any PacketSource
  public let outputs: [any MovieOutput]
  public let limits: RecordingLimits
  private let stopRequested = Atomic<Bool>(false)
  /// Video packets copied so far.
  public let videoPackets = Atomic<Int>(0)

  /// Tells every output the streams.
  /// - Throws: `FFmpegError` when an output's container cannot hold a stream.
  public init(source: any PacketSource, outputs: [any MovieOutput], limits: RecordingLimits = RecordingLimits()) throws {
    self.source = source
    self.outputs = outputs
    self.limits = limits
    for output in outputs { try output.prepare(streams: source.streams) }
  }

  /// Ends the copy after the current packet (a signal).
  public func stop() { stopRequested.store(true, ordering: .releasing) }

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
        for output in outputs { try output.write(packet) }
        if packet.stream.kind == .video {
          if let limit = limits.frames, frames >= limit {
            reason = .frames
            break
          }
          if let limit = limits.bytes, bytesWritten >= limit {
            reason = .maxSize
            break
          }
          if outputs.allSatisfy(\.hasEnded) {
            reason = .outputsEnded
            break
          }
          if outputs.contains(where: { $0.stopRequest != nil }) {
            reason = .minFree
            break
          }
        }
      }
      for output in outputs { try output.finish() }
    } catch {
      failure = error
      reason = .failed
      for output in outputs { output.cancel() }
    }
    var summary = RecordingSummary(
      framesIn: frames + source.framesSkippedLate + source.framesCorrupt, framesOut: frames,
      dropped: [
        DropReason.late.rawValue: source.framesSkippedLate, DropReason.outOfBuffers.rawValue: 0,
        DropReason.corrupt.rawValue: source.framesCorrupt,
      ],
      audioChunks: 0, durationSeconds: max(0, lastVideoEnd - (firstVideo ?? 0)),
      elapsedSeconds: Double(MonotonicClock.nanoseconds() - started) / 1e9, bytes: bytesWritten, stopReason: reason,
      error: failure.map { "\($0)" })
    summary.videoPath = "\(source.streams[0].codecName) → copy"
    summary.bgraFrames = 0
    if outputs.count > 1 || outputs.allSatisfy(\.isLive) { summary.outputs = outputs.map(\.report) }
    return summary
  }

  /// The files' bytes (the live outputs' when there is no file).
  private var bytesWritten: Int64 {
    let files = outputs.filter { !$0.isLive }
    return (files.isEmpty ? outputs : files).reduce(0) { $0 + $1.bytesWritten }
  }
}
