import CamfxCore
import CamfxMedia
import CamfxMotion

/// The motion detector run over a movie, as `camfx motion FILE` does to tune it offline:
/// every frame's result, and the events a recording with the same options would make.
///
///     let analysis = try MotionAnalysis(path: "door.mp4", options: .init(area: 1))
///     for event in analysis.events { print(event.start, event.end, event.score) }
public struct MotionAnalysis: Sendable {
  /// One stretch of motion, as the event clips would see it: runs of motion closer than
  /// `gap` are one event.
  public struct Event: Sendable, Equatable, Codable {
    /// When motion began (the first frame of its run) and ended (the first frame
    /// without it, or the movie's end).
    public var start: Double
    public var end: Double
    /// The highest score, when it came, in which zone, and the boxes then.
    public var score: Double
    public var scoreAt: Double
    public var zone: String
    public var boxes: [PixelRectangle]

    enum CodingKeys: String, CodingKey {
      case start, end, score, scoreAt = "score_at", zone, boxes
    }
  }

  public let path: String
  public let width: Int
  public let height: Int
  public let frames: [MotionFrame]
  public let events: [Event]
  /// Mean time the detector took per frame (µs).
  public let meanMicroseconds: Double

  /// Reads every frame of the movie at `path` through the detector.
  /// - Parameter gap: runs of motion less than this apart are one event (`--event-gap`,
  ///   by default the post-roll).
  /// - Throws: `FFmpegError` when the movie cannot be read, `MotionOptionError` when the
  ///   options do not fit its frames.
  public init(path: String, options: MotionDetector.Options, gap: Double = 10) throws {
    self.path = path
    let reader = try MovieReader(path: path)
    reader.deliverYUV420Frames()
    width = reader.geometry.width
    height = reader.geometry.height
    let detector = try MotionDetector(width: width, height: height, options: options)
    var frames: [MotionFrame] = []
    var nanoseconds: Int64 = 0
    var lastTime = 0.0
    while let sample = try reader.nextSample() {
      guard case .video(let frame) = sample else { continue }
      let started = MonotonicClock.nanoseconds()
      let result = detector.analyze(frame)
      nanoseconds += MonotonicClock.nanoseconds() - started
      frames.append(result)
      lastTime = frame.presentationTime.seconds + (reader.frameDuration?.seconds ?? 1.0 / 30)
    }
    self.frames = frames
    meanMicroseconds = frames.isEmpty ? 0 : Double(nanoseconds) / Double(frames.count) / 1000
    events = Self.events(in: frames, gap: gap, movieEnd: lastTime)
  }

  /// The events in `frames`: from each `began` to its `ended`, runs less than `gap`
  /// apart joined, with the peak score of each.
  public static func events(in frames: [MotionFrame], gap: Double, movieEnd: Double) -> [Event] {
    var events: [Event] = []
    var open = false
    for frame in frames {
      if let began = frame.began {
        if let last = events.last, began < last.end + gap {
          open = true
        } else {
          events.append(Event(start: began, end: began, score: 0, scoreAt: began, zone: frame.zone, boxes: []))
          open = true
        }
      }
      guard open, !events.isEmpty else { continue }
      if frame.moving, frame.score > events[events.count - 1].score {
        events[events.count - 1].score = frame.score
        events[events.count - 1].scoreAt = frame.time
        events[events.count - 1].zone = frame.zone
        events[events.count - 1].boxes = frame.boxes
      }
      if let ended = frame.ended {
        events[events.count - 1].end = ended
        open = false
      }
    }
    if open, !events.isEmpty { events[events.count - 1].end = movieEnd }
    return events
  }

  /// One row per frame: `time,score,threshold,zone,pixel_threshold,noise,brightness,
  /// changed,moving,light_switch,boxes` (boxes as `x:y:w:h` joined by spaces).
  public var csv: String {
    var text = "time,score,threshold,zone,pixel_threshold,noise,brightness,changed,moving,light_switch,boxes\n"
    for frame in frames {
      let boxes = frame.boxes.map { "\($0.x):\($0.y):\($0.width):\($0.height)" }.joined(separator: " ")
      text += [
        RecordingStatusLine.fixed(frame.time, 4), RecordingStatusLine.fixed(frame.score, 3),
        RecordingStatusLine.fixed(frame.threshold, 3), frame.zone, RecordingStatusLine.fixed(frame.pixelThreshold, 2),
        RecordingStatusLine.fixed(frame.noise, 3), RecordingStatusLine.fixed(frame.brightness, 2),
        frame.changed ? "1" : "0", frame.moving ? "1" : "0", frame.lightSwitch ? "1" : "0", boxes,
      ].joined(separator: ",") + "\n"
    }
    return text
  }
}
