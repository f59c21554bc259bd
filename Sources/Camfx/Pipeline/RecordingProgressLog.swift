/// Progress of a recording for a log, not a terminal: when stderr is a file or the
/// journal (a service), one line per `interval` instead of a status line redrawn in
/// place:
///
///     camfx: 01:00:00 recorded, 108000 frames, 0 dropped, 30.0 fps, 1.35 GB, 3.0 Mbit/s
///
/// `fps` is over the last interval, the bit rate over the whole run.
public struct RecordingProgressLog: Sendable {
  public let interval: Double
  private var nextLine: Double
  /// The status line's rates: fps since the last line, bit rate over the run.
  private var meter = RecordingStatusLine()

  /// - Parameter interval: seconds between lines (60 for a service).
  public init(interval: Double = 60) {
    self.interval = interval
    nextLine = interval
  }

  /// The line to log at `elapsed` seconds, or nil when the next one is not due yet.
  public mutating func line(for snapshot: RecordingStatistics.Snapshot, elapsed: Double) -> String? {
    guard elapsed >= nextLine else { return nil }
    while nextLine <= elapsed { nextLine += interval }
    let (fps, bitrate) = meter.rates(for: snapshot, elapsed: elapsed)
    return "camfx: \(Self.clock(elapsed)) recorded, \(snapshot.framesWritten) frames, \(snapshot.dropped) dropped, "
      + "\(RecordingStatusLine.fixed(fps, 1)) fps, \(RecordingStatusLine.bytes(snapshot.bytesWritten)), "
      + RecordingStatusLine.bitrate(bitrate)
  }

  /// `hh:mm:ss`, hours growing past 99 for recordings that run for months.
  static func clock(_ seconds: Double) -> String {
    let s = Int(seconds.rounded(.down))
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
  }
}
