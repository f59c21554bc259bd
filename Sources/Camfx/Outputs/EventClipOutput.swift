import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
import Synchronization

/// One event clip: a crash-safe movie file (`MovieFileOutput`, fragmented and finished
/// in place) fed from the packet bus, starting at its pre-roll's keyframe and ending at
/// `end` (recording time), which the next trigger may move later while it is open.
/// Timestamps start at zero in the clip; `firstSeconds` says where it began in the
/// recording.
///
/// `@unchecked Sendable`: the file and the times it saw are its worker's; `end` and
/// what the recorder reads are under `shared`.
final class EventClipOutput: MovieOutput, @unchecked Sendable {
  let file: MovieFileOutput
  /// The recording time of the clip's first picture, which is zero in the clip.
  private var start: MediaTime?

  private struct Shared {
    var end: Double
    /// Recording time of the first video packet written, and the end of the last.
    var firstSeconds: Double?
    var lastEndSeconds = 0.0
    /// True once a video packet at or after `end` arrived: the clip is whole.
    var complete = false
  }
  private let shared: Mutex<Shared>

  init(path: String, end: Double, options: MovieFileOutput.Options) throws {
    file = try MovieFileOutput(path: path, options: options)
    shared = Mutex(Shared(end: end))
  }

  /// Moves the end later (a trigger while the clip is open); never earlier than a
  /// packet already written.
  /// - Returns: false, changing nothing, when the clip is already complete (a packet at
  ///   or after its end came): then it cannot go on, and a new clip must start.
  func extend(to end: Double) -> Bool {
    shared.withLock { s in
      guard !s.complete else { return false }
      s.end = max(s.end, end)
      return true
    }
  }

  /// Ends the clip at `end` if that is sooner (a stop request).
  func cut(at end: Double) { shared.withLock { $0.end = max(min($0.end, end), $0.lastEndSeconds) } }

  var isComplete: Bool { shared.withLock { $0.complete } }
  var span: (first: Double?, end: Double) { shared.withLock { ($0.firstSeconds, $0.lastEndSeconds) } }
  var plannedEnd: Double { shared.withLock { $0.end } }

  func prepare(streams: [EncodedStream]) throws(FFmpegError) {
    try file.prepare(streams: streams)
  }

  func write(_ packet: EncodedPacket) throws(FFmpegError) {
    let t = packet.presentationSeconds
    let isVideo = packet.stream.kind == .video
    // The end read and the clip completed at once: an `extend` between the two would
    // succeed and yet be lost.
    let (past, first) = shared.withLock { s -> (Bool, Double?) in
      guard t >= s.end - 1e-9 else { return (false, s.firstSeconds) }
      if isVideo { s.complete = true }
      return (true, s.firstSeconds)
    }
    if past { return }
    if first == nil {
      // The clip starts at its first picture, the pre-roll's keyframe: every stream's
      // timestamps move by the same time.
      guard isVideo else { return }
      start = packet.presentationTime
      shared.withLock { $0.firstSeconds = t }
    }
    guard let start else { return }
    let moved = try packet.reference(offsetBy: .zero - start)
    // Sound from before the clip's first picture stays out.
    if moved.presentationSeconds < 0 { return }
    try file.write(moved)
    if isVideo { shared.withLock { $0.lastEndSeconds = max($0.lastEndSeconds, t + packet.durationSeconds) } }
  }

  func finish() throws(FFmpegError) { try file.finish() }
  func cancel() { file.cancel() }
  var bytesWritten: Int64 { file.bytesWritten }
  var videoPacketsWritten: Int { file.videoPacketsWritten }
  var videoEndSeconds: Double { file.videoEndSeconds }
  var report: OutputReport {
    var report = file.report
    report.kind = "event"
    return report
  }
}
