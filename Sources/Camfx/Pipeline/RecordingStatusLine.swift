import CamfxCore
import CamfxMedia

/// The one line a running recording shows on a terminal, refreshed in place, and the
/// summary it prints at the end:
///
///     00:05.2  30.0 fps  frames 156  dropped 0  1.2 MB  2.1 Mbit/s
///
/// `fps` is measured over the last refresh interval; `bitrate` over the whole run.
public struct RecordingStatusLine: Sendable {
  private var lastFrames = 0
  private var lastSeconds = 0.0

  public init() {}

  /// The status text for `snapshot` taken `elapsed` seconds after the start.
  public mutating func text(for snapshot: RecordingStatistics.Snapshot, elapsed: Double) -> String {
    let (fps, bitrate) = rates(for: snapshot, elapsed: elapsed)
    return "\(Self.clock(elapsed))  \(Self.fixed(fps, 1)) fps  frames \(snapshot.framesWritten)"
      + "  dropped \(snapshot.dropped)  \(Self.bytes(snapshot.bytesWritten))  \(Self.bitrate(bitrate))"
  }

  /// The progress bar of a job whose length is known (a composition, a transcode):
  ///
  ///     [#########-----------]  45%  00:05.4 of 00:12.0  2.3x  ETA 00:02.9
  ///
  /// with the media time written, the speed (media seconds per second) and the time left
  /// at that speed.
  public static func progress(framesWritten: Int, totalFrames: Int, frameSeconds: Double, elapsed: Double) -> String {
    let done = totalFrames > 0 ? min(1, Double(framesWritten) / Double(totalFrames)) : 0
    let width = 20
    let filled = Int((done * Double(width)).rounded(.down))
    let media = Double(framesWritten) * frameSeconds, total = Double(totalFrames) * frameSeconds
    let speed = elapsed > 0 ? media / elapsed : 0
    let eta = speed > 0 ? (total - media) / speed : 0
    return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]  "
      + "\(Int((done * 100).rounded(.down)))%  \(clock(media)) of \(clock(total))  \(fixed(speed, 1))x"
      + (speed > 0 ? "  ETA \(clock(eta))" : "")
  }

  /// What the status line adds for the live outputs (streams, pipes, HLS): each one's
  /// state when it is not sending normally, and its drops:
  /// `  | rtmp://host/live/cam reconnecting, dropped 45`.
  public static func liveOutputs(_ reports: [OutputReport]) -> String {
    var text = ""
    for r in reports where r.kind != "file" && r.kind != "segments" {
      var parts: [String] = []
      if r.state != .writing { parts.append(r.state.rawValue) }
      if r.droppedFrames > 0 { parts.append("dropped \(r.droppedFrames)") }
      text += "  | \(r.name)" + (parts.isEmpty ? " " + bytes(r.bytes) : " " + parts.joined(separator: ", "))
    }
    return text
  }

  /// The closing line of a live output, e.g.
  /// `rtmp://host/live/cam: sent 300 frames, 1.2 MB; dropped 0 frames; reconnected 1 time(s)`.
  public static func outputSummary(_ r: OutputReport) -> String {
    var text = "\(r.name): sent \(r.videoFrames) frames, \(bytes(r.bytes)); dropped \(r.droppedFrames) frames"
    if r.reconnects > 0 { text += "; reconnected \(r.reconnects) time(s)" }
    if r.state == .failed, let error = r.error { text += "; stopped: \(error)" }
    return text
  }

  /// Frames per second since the previous call, and bits per second over the run.
  mutating func rates(for snapshot: RecordingStatistics.Snapshot, elapsed: Double) -> (fps: Double, bitrate: Double) {
    let interval = elapsed - lastSeconds
    let fps = interval > 0 ? Double(snapshot.framesWritten - lastFrames) / interval : 0
    lastFrames = snapshot.framesWritten
    lastSeconds = elapsed
    return (fps, elapsed > 0 ? Double(snapshot.bytesWritten) * 8 / elapsed : 0)
  }

  /// The closing line of a file beside the first, with its own figures, e.g.
  /// `b.mkv: 120 frames (4.00 s), 20.8 kB, 41.5 kbit/s`.
  public static func fileSummary(_ r: OutputReport) -> String {
    let seconds = r.videoSeconds ?? 0
    let rate = r.bitsPerSecond ?? (seconds > 0 ? Double(r.bytes) * 8 / seconds : 0)
    var text = "\(r.name): \(r.videoFrames) frames (\(fixed(seconds, 2)) s), \(bytes(r.bytes)), \(bitrate(rate))"
    if r.state == .failed, let error = r.error { text += "; stopped: \(error)" }
    return text
  }

  /// The closing summary, e.g.
  /// `recorded 60 frames (2.00 s) to out.mp4: 181.2 kB, 724.8 kbit/s, 0 dropped (late 0, out-of-buffers 0, corrupt 0); stopped by duration after 2.1 s`.
  /// - Parameter bytes: the size `output` names (default: `s.bytes`, the first file's).
  public static func summary(_ s: RecordingSummary, output: String, bytes size: Int64? = nil) -> String {
    let size = size ?? s.bytes
    let rate = s.durationSeconds > 0 ? Double(size) * 8 / s.durationSeconds : 0
    let reasons = DropReason.allCases.map { "\($0.rawValue) \(s.dropped[$0.rawValue] ?? 0)" }.joined(separator: ", ")
    var text = "recorded \(s.framesOut) frames (\(fixed(s.durationSeconds, 2)) s) to \(output): \(bytes(size)), "
      + "\(bitrate(rate)), \(s.droppedTotal) dropped (\(reasons)); stopped by \(s.stopReason.rawValue) after "
      + "\(fixed(s.elapsedSeconds, 1)) s"
    // Loop recording: what is left on disk is not what was written.
    if let segments = s.segments, segments.contains(where: { !$0.kept }) {
      let kept = segments.filter(\.kept)
      let keptBytes = kept.reduce(Int64(0)) { $0 + $1.bytes }
      let keptSeconds = kept.reduce(0.0) { $0 + $1.duration }
      let keptRate = keptSeconds > 0 ? Double(keptBytes) * 8 / keptSeconds : 0
      text += "; kept the newest \(kept.count) of \(segments.count) segments: \(bytes(keptBytes)), "
        + "\(fixed(keptSeconds, 2)) s, \(bitrate(keptRate))"
    }
    return text
  }

  /// `mm:ss.t`.
  static func clock(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded(.down))
    let minutes = tenths / 600
    let rest = tenths % 600
    return "\(minutes < 10 ? "0" : "")\(minutes):\(rest < 100 ? "0" : "")\(rest / 10).\(rest % 10)"
  }

  /// `1.2 MB`, `181.2 kB`, `512 B` (decimal units, like the `--max-size` option).
  public static func bytes(_ n: Int64) -> String {
    if n >= 1_000_000_000 { return fixed(Double(n) / 1e9, 2) + " GB" }
    if n >= 1_000_000 { return fixed(Double(n) / 1e6, 1) + " MB" }
    if n >= 1_000 { return fixed(Double(n) / 1e3, 1) + " kB" }
    return "\(n) B"
  }

  public static func bitrate(_ bitsPerSecond: Double) -> String {
    if bitsPerSecond >= 1e6 { return fixed(bitsPerSecond / 1e6, 1) + " Mbit/s" }
    return fixed(bitsPerSecond / 1e3, 1) + " kbit/s"
  }

  /// `value` with exactly `digits` decimals (no Foundation formatting needed).
  public static func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((abs(value) * scale).rounded())
    let whole = scaled / Int64(scale)
    var frac = String(scaled % Int64(scale))
    while frac.count < digits { frac = "0" + frac }
    return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (digits > 0 ? "." + frac : "")
  }
}
