import Camfx
import CamfxMedia
import Foundation
import Synchronization

/// The figures `/state` serves and the preview page shows, from a running session:
///
///     {"elapsed_seconds": 12.5, "frames": 375, "frames_in": 375, "fps": 30.0, "dropped": 0,
///      "bytes": 1234567, "bitrate": 790123, "viewers": 1, "outputs": [...],
///      "signal": "live", "seconds_since_last_frame": 0.02}
///
/// `fps` is measured between two calls at least 0.4 s apart (the page's, or a script's
/// polling); a first call, or one whose caller has no earlier reading, gets the rate
/// since the first frame instead, never a 0 while frames flow.
///
/// `signal` says whether the camera is sending: `waiting` before its first frame, `live`
/// while frames come, `lost` once none came for `staleAfter` seconds (a camera unplugged
/// and waited for, or one that ended). It is measured on the recorded frames, so it
/// holds for every source the same way, as the mosaic's "no signal" card does.
public final class PreviewState: Sendable {
  struct Figures: Codable {
    var elapsedSeconds: Double
    var frames: Int
    var framesIn: Int
    var fps: Double
    var dropped: Int
    var bytes: Int64
    var bitrate: Double
    var viewers: Int
    var outputs: [OutputReport]
    var motion: MotionState?
    var signal: Signal
    var secondsSinceLastFrame: Double?
    var archive: ArchiveBacklog?
    enum CodingKeys: String, CodingKey {
      case elapsedSeconds = "elapsed_seconds", frames, framesIn = "frames_in", fps, dropped, bytes, bitrate, viewers
      case outputs, motion, signal, secondsSinceLastFrame = "seconds_since_last_frame", archive
    }
  }

  /// Whether frames are coming (see the type's discussion).
  enum Signal: String, Codable {
    case waiting, live, lost
  }

  /// The motion detector's last frame, for the page to draw its boxes over the picture.
  struct MotionState: Codable {
    var time: Double
    var score: Double
    var threshold: Double
    var zone: String
    var moving: Bool
    var noise: Double
    var boxes: [PixelRectangle]
    var width: Int
    var height: Int
  }

  private let statistics: RecordingStatistics
  private let started = MonotonicClock.nanoseconds()
  private let outputs: @Sendable () -> [OutputReport]
  private let viewers: @Sendable () -> Int
  private let motion: MotionTap?
  private let geometry: FrameGeometry
  private let staleAfter: Double
  /// Where the recording's finished files go (`--archive`), if anywhere.
  private let archive: (any FileArchive)?
  private let last = Mutex<(frames: Int, nanoseconds: Int64, fps: Double)>((0, 0, 0))

  /// - Parameters:
  ///   - motion: the detector whose last frame `/state` shows (`motion`), in a picture
  ///     of `geometry`.
  ///   - staleAfter: seconds without a frame before `signal` says `lost`.
  public init(
    statistics: RecordingStatistics, viewers: @escaping @Sendable () -> Int, motion: MotionTap? = nil,
    geometry: FrameGeometry = FrameGeometry(width: 0, height: 0), staleAfter: Double = 2, archive: (any FileArchive)? = nil,
    outputs: @escaping @Sendable () -> [OutputReport] = { [] }
  ) {
    self.archive = archive
    self.statistics = statistics
    self.staleAfter = staleAfter
    self.viewers = viewers
    self.outputs = outputs
    self.motion = motion
    self.geometry = geometry
  }

  public func json() -> [UInt8] {
    let snapshot = statistics.snapshot
    let now = MonotonicClock.nanoseconds()
    let elapsed = Double(now - started) / 1e9
    let measured = last.withLock { last -> Double in
      let interval = Double(now - last.nanoseconds) / 1e9
      if interval >= 0.4 {
        last.fps =
          last.nanoseconds == 0
          ? statistics.averageFramesPerSecond(now: now) : Double(snapshot.framesWritten - last.frames) / interval
        last.frames = snapshot.framesWritten
        last.nanoseconds = now
      }
      return last.fps
    }
    let silent = statistics.secondsSinceLastFrame(now: now)
    let signal: Signal = silent.map { $0 < staleAfter ? .live : .lost } ?? .waiting
    // A rate measured over a stretch the camera was gone for is not its rate now.
    let fps = signal == .lost ? 0 : measured
    let figures = Figures(
      elapsedSeconds: elapsed, frames: snapshot.framesWritten, framesIn: snapshot.framesIn, fps: fps,
      dropped: snapshot.dropped, bytes: snapshot.bytesWritten,
      bitrate: elapsed > 0 ? Double(snapshot.bytesWritten) * 8 / elapsed : 0, viewers: viewers(), outputs: outputs(),
      motion: motion?.latest.map {
        MotionState(
          time: $0.time, score: $0.score, threshold: $0.threshold, zone: $0.zone, moving: $0.moving, noise: $0.noise,
          boxes: $0.boxes, width: geometry.width, height: geometry.height)
      }, signal: signal, secondsSinceLastFrame: silent, archive: archive?.backlog)
    return Array((try? JSONEncoder().encode(figures)) ?? Data("{}".utf8))
  }

  /// The camera's figures for `/metrics`, labelled `camera="NAME"`: frames in and out,
  /// drops by reason, bytes encoded, each output's bytes, drops and state, viewers,
  /// whether frames come, the motion score.
  public func addMetrics(to families: inout MetricFamilies, camera: String) {
    let snapshot = statistics.snapshot
    let now = MonotonicClock.nanoseconds()
    let cameraLabel = ("camera", camera)
    for (stage, frames) in [("in", snapshot.framesIn), ("out", snapshot.framesWritten)] {
      families.add(
        "camfx_frames_total", .counter, help: "Frames the source gave (in) and the encoder took (out).",
        labels: [cameraLabel, ("stage", stage)], value: Double(frames))
    }
    for (reason, frames) in [
      ("late", snapshot.droppedLate), ("out_of_buffers", snapshot.droppedOutOfBuffers), ("corrupt", snapshot.droppedCorrupt),
    ] {
      families.add(
        "camfx_frames_dropped_total", .counter, help: "Frames a live source dropped, by reason.",
        labels: [cameraLabel, ("reason", reason)], value: Double(frames))
    }
    families.add(
      "camfx_encoded_bytes_total", .counter, help: "Bytes the encoders made.", labels: [cameraLabel],
      value: Double(snapshot.bytesWritten))
    families.add("camfx_viewers", .gauge, help: "Viewers of the MJPEG stream.", labels: [cameraLabel], value: Double(viewers()))
    let silent = statistics.secondsSinceLastFrame(now: now)
    families.add(
      "camfx_signal_up", .gauge, help: "1 while frames come, 0 before the first or after none for a while.",
      labels: [cameraLabel], value: silent.map { $0 < staleAfter ? 1 : 0 } ?? 0)
    if let latest = motion?.latest {
      families.add(
        "camfx_motion_score_ratio", .gauge, help: "The motion detector's last score (0 to 1).", labels: [cameraLabel],
        value: latest.score)
    }
    if let backlog = archive?.backlog {
      let labels = [cameraLabel, ("destination", backlog.destination)]
      families.add(
        "camfx_archive_waiting_files", .gauge, help: "Finished files the object store has not confirmed yet.", labels: labels,
        value: Double(backlog.files))
      families.add(
        "camfx_archive_waiting_bytes", .gauge, help: "Bytes of the files waiting for the object store.", labels: labels,
        value: Double(backlog.bytes))
      families.add(
        "camfx_archive_oldest_waiting_seconds", .gauge, help: "How long the oldest waiting file has waited (0: none waits).",
        labels: labels, value: backlog.oldestWaitingSeconds ?? 0)
      families.add(
        "camfx_archived_files_total", .counter, help: "Files the object store confirmed.", labels: labels,
        value: Double(backlog.archivedFiles))
      families.add(
        "camfx_archived_bytes_total", .counter, help: "Bytes of the files the object store confirmed.", labels: labels,
        value: Double(backlog.archivedBytes))
      families.add(
        "camfx_archive_lost_files_total", .counter, help: "Files deleted before the object store confirmed them.",
        labels: labels, value: Double(backlog.lostFiles.count))
      families.add(
        "camfx_archive_up", .gauge, help: "0 while the object store cannot be reached or refuses.", labels: labels,
        value: backlog.outage == nil ? 1 : 0)
    }
    for output in outputs() {
      let labels = [cameraLabel, ("output", output.name), ("kind", output.kind)]
      families.add(
        "camfx_output_bytes_total", .counter, help: "Bytes an output wrote or sent.", labels: labels, value: Double(output.bytes))
      families.add(
        "camfx_output_frames_dropped_total", .counter, help: "Video frames an output dropped (a live one behind).",
        labels: labels, value: Double(output.droppedFrames))
      families.add(
        "camfx_output_reconnects_total", .counter, help: "Times a network output connected again.", labels: labels,
        value: Double(output.reconnects))
      if let packets = output.queuedPackets, let bytes = output.queuedBytes {
        families.add(
          "camfx_output_queue_packets", .gauge, help: "Packets waiting in an output's queue.", labels: labels,
          value: Double(packets))
        families.add(
          "camfx_output_queue_bytes", .gauge, help: "Bytes waiting in an output's queue.", labels: labels, value: Double(bytes))
      }
      for state in OutputReport.State.allCases {
        families.add(
          "camfx_output_state", .gauge, help: "1 for the state an output is in.",
          labels: labels + [("state", state.rawValue)], value: output.state == state ? 1 : 0)
      }
    }
  }
}
