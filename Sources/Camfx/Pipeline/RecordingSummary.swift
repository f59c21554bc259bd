import CamfxFrames
import CamfxMedia
/// The figures of a finished recording: printed at the end, written by `--stats-json`.
public struct RecordingSummary: Sendable, Codable, Equatable {
  /// Frames the input delivered or tried to deliver (written + dropped).
  public var framesIn: Int
  /// Frames encoded into the file.
  public var framesOut: Int
  /// Live frames dropped, by reason (`late`, `out-of-buffers`); always both keys.
  public var dropped: [String: Int]
  /// Audio blocks encoded.
  public var audioChunks: Int
  /// Video duration in the file: last frame's timestamp + one frame − first frame's.
  public var durationSeconds: Double
  /// Wall-clock time from start to finished file.
  public var elapsedSeconds: Double
  /// Size of the recording's file: the first file given (the one the summary line
  /// names), or the first stream when there is no file. Each output's own is in
  /// `outputs`.
  public var bytes: Int64
  /// The bytes of every file together (of every stream, when there is no file), when
  /// there is more than one.
  public var totalBytes: Int64? = nil
  public var stopReason: StopReason
  /// The failure, if the recording failed.
  public var error: String?
  /// Seconds each stage spent working rather than waiting (`filter`, `writer`): the
  /// stage whose figure is close to `elapsedSeconds` is the one that made frames late.
  public var busySeconds: [String: Double] = [:]
  /// The files of a segmented recording (`--segment`), oldest first.
  public var segments: [SegmentedMovieOutput.Segment]? = nil
  /// Times the camera was gone and came back (`--reconnect-timeout`).
  public var cameraGaps: [CameraGap]? = nil
  /// Why the sound ended before the video (a microphone unplugged), if it did: the
  /// video went on, and the audio track ends there.
  public var soundError: String? = nil
  /// Seconds the in-place finish of a fragmented MP4 took (writing its index).
  public var indexSeconds: Double? = nil
  /// Seconds spent in `fdatasync` making the fragments durable, and how many calls.
  public var syncSeconds: Double? = nil
  public var syncs: Int? = nil
  /// The formats and filters the video went through, e.g.
  /// `yuyv422 → yuv420p → mirror → encoder`.
  public var videoPath: String? = nil
  /// Frames the filter stage got as BGRA (0 when the whole path is yuv420p).
  public var bgraFrames: Int? = nil
  /// When the first frame entered the pipeline, by the wall clock (seconds since the
  /// epoch): frame n of a live source left the camera at about this plus its timestamp.
  public var firstFrameEpochSeconds: Double? = nil
  /// Every output and how it did, when there is more than one or no file.
  public var outputs: [OutputReport]? = nil
  /// What the packet bus did: packets published, and the time `publish` took on the
  /// encoders' threads (mean and longest, µs).
  public var packetBus: PacketBusSummary? = nil
  /// The event clips (`--pre-record`), as their sidecars say.
  public var events: [EventRecorder.Event]? = nil
  /// What the motion detector did (`--motion`).
  public var motion: MotionSummary? = nil
  /// What the tap stage did, when there were taps (motion, stills, a preview).
  public var taps: TapSummary? = nil

  public struct TapSummary: Sendable, Codable, Equatable {
    /// Frames the taps were given.
    public var frames: Int
    /// Frames of a live input the taps fell too far behind to be given (the file has
    /// them all).
    public var dropped: Int

    public init(frames: Int, dropped: Int) {
      self.frames = frames
      self.dropped = dropped
    }
  }

  public struct MotionSummary: Sendable, Codable, Equatable {
    public var frames: Int
    /// Times motion began, and times the picture was learned again after a light switch.
    public var motions: Int
    public var lightSwitches: Int
    /// The detector's time per frame (µs).
    public var meanMicroseconds: Double
    public var longestMicroseconds: Double
    /// The last frame's score, the threshold it was held to, and the noise measured.
    public var score: Double
    public var threshold: Double
    public var noise: Double
    /// The last frame's boxes (the events have theirs at their peaks).
    public var boxes: [PixelRectangle]

    public init(_ figures: MotionTap.Figures, last: MotionFrame?) {
      frames = figures.frames
      motions = figures.motions
      lightSwitches = figures.lightSwitches
      meanMicroseconds = figures.meanMicroseconds
      longestMicroseconds = figures.longestMicroseconds
      score = last?.score ?? 0
      threshold = last?.threshold ?? 0
      noise = last?.noise ?? 0
      boxes = last?.boxes ?? []
    }

    enum CodingKeys: String, CodingKey {
      case frames, motions, lightSwitches = "light_switches", meanMicroseconds = "mean_us"
      case longestMicroseconds = "longest_us", score, threshold, noise, boxes
    }
  }

  public struct PacketBusSummary: Sendable, Codable, Equatable {
    public var packets: Int
    public var publishMeanMicroseconds: Double
    public var publishLongestMicroseconds: Double
    /// The most bytes of packets kept at once (the last GOP, or an event pre-roll), and
    /// the seconds they spanned at the end.
    public var peakKeptBytes: Int
    public var keptSeconds: Double

    public init(_ figures: PacketBus.Figures) {
      packets = figures.packets
      publishMeanMicroseconds = figures.packets > 0 ? Double(figures.publishNanoseconds) / Double(figures.packets) / 1e3 : 0
      publishLongestMicroseconds = Double(figures.longestPublishNanoseconds) / 1e3
      peakKeptBytes = figures.peakKeptBytes
      keptSeconds = figures.keptSeconds
    }

    enum CodingKeys: String, CodingKey {
      case packets, publishMeanMicroseconds = "publish_mean_us", publishLongestMicroseconds = "publish_longest_us"
      case peakKeptBytes = "peak_kept_bytes", keptSeconds = "kept_seconds"
    }
  }

  public init(
    framesIn: Int, framesOut: Int, dropped: [String: Int], audioChunks: Int, durationSeconds: Double,
    elapsedSeconds: Double, bytes: Int64, stopReason: StopReason, error: String?
  ) {
    self.framesIn = framesIn
    self.framesOut = framesOut
    self.dropped = dropped
    self.audioChunks = audioChunks
    self.durationSeconds = durationSeconds
    self.elapsedSeconds = elapsedSeconds
    self.bytes = bytes
    self.stopReason = stopReason
    self.error = error
  }

  public var droppedTotal: Int { dropped.values.reduce(0, +) }

  enum CodingKeys: String, CodingKey {
    case framesIn = "frames_in", framesOut = "frames_out", dropped, audioChunks = "audio_chunks"
    case durationSeconds = "duration_seconds", elapsedSeconds = "elapsed_seconds", bytes, totalBytes = "total_bytes"
    case stopReason = "stop_reason", error, busySeconds = "busy_seconds", segments
    case cameraGaps = "camera_gaps", soundError = "sound_error", indexSeconds = "index_seconds"
    case syncSeconds = "sync_seconds", syncs, videoPath = "video_path", bgraFrames = "bgra_frames", outputs
    case firstFrameEpochSeconds = "first_frame_epoch", packetBus = "packet_bus", events, motion, taps
  }
}

extension RecordingSummary {
  /// Makes a recording whose outputs all took no frame, though frames were encoded, a
  /// failure that names the first output that said why (a server that never answered):
  /// nothing of it was kept anywhere, and exiting 0 would say it was.
  /// Event clips that hold frames were kept: they are not nothing.
  mutating func failWhenNothingWasKept(outputs reports: [OutputReport], framesEncoded: Int) {
    guard error == nil, framesEncoded > 0, !reports.isEmpty, reports.allSatisfy({ $0.videoFrames == 0 }),
      !(events ?? []).contains(where: { $0.frames > 0 }),
      let failed = reports.first(where: { $0.error != nil }), let reason = failed.error
    else { return }
    error = "nothing was recorded: \(failed.name) took no frame (\(reason))"
  }

  /// Takes the sizes of the outputs the recording is measured by (its files, or its
  /// streams when it has no file): `bytes` becomes the first one's, and `totalBytes`
  /// their sum when there are several. The first file was credited with all of them.
  mutating func add(measuredOutputs reports: [OutputReport]) {
    guard let first = reports.first else { return }
    bytes = first.bytes
    totalBytes = reports.count > 1 ? reports.reduce(0) { $0 + $1.bytes } : nil
  }

  /// Takes the figures of the recording's file (its segments, or what finishing and
  /// syncing it cost) into the summary.
  mutating func add(_ figures: FileOutputFigures) {
    segments = figures.segments
    indexSeconds = figures.indexSeconds
    syncSeconds = figures.syncSeconds
    syncs = figures.syncs
  }
}
