import CamfxCore

/// Movies and stills played one after another, as `AVMutableComposition` holds them,
/// with a cross-fade between every pair of neighbours and fades from and to the
/// background at the ends (the opacity and volume ramps of `AVVideoComposition` and
/// `AVAudioMix`). Times are exact rationals.
///
///     var composition = Composition(items: [
///       CompositionItem(movie: "a.mp4", start: MediaTime(value: 5, timescale: 1)),
///       CompositionItem(still: "title.png", duration: MediaTime(value: 2, timescale: 1)),
///     ])
///     composition.transition = MediaTime(value: 1, timescale: 2)
public struct Composition: Sendable, Equatable {
  public var items: [CompositionItem]
  /// How long neighbours overlap in a cross-fade (zero: a cut). Each fade shortens the
  /// total by its length, as ffmpeg's `xfade` does.
  public var transition: MediaTime = .zero
  /// A fade from the background and silence at the start, and to them at the end.
  public var fadeIn: MediaTime = .zero
  public var fadeOut: MediaTime = .zero
  /// A music track under the whole movie.
  public var music: Music?

  /// A sound file (`FILE[@START..END]`) played under the composition, looped or cut to
  /// its length, at `volume` over the items' own sound, or instead of it.
  public struct Music: Sendable, Equatable {
    public var path: String
    public var start: MediaTime?
    public var end: MediaTime?
    public var volume: Double = 0.3
    /// True: the items' own sound is left out.
    public var replacesSound = false

    public init(path: String, start: MediaTime? = nil, end: MediaTime? = nil) {
      self.path = path
      self.start = start
      self.end = end
    }

    /// `FILE[@START..END]`, as a movie item.
    public init(parsing text: String) throws {
      let item = try CompositionItem(parsing: text)
      guard case .movie(let path) = item.asset else {
        throw RecordingOptionError("--music \(text): expected a sound or movie file, FILE[@START..END]")
      }
      self.init(path: path, start: item.start, end: item.end)
    }
  }

  public init(items: [CompositionItem]) { self.items = items }
}

/// How a composition is drawn: every item scaled to fit the render size (keeping its
/// aspect ratio) and centred on the background, one frame every `frameDuration`
/// (frames repeated or dropped by timestamp, never interpolated), as
/// `AVMutableVideoComposition`'s `renderSize`, `frameDuration` and background colour.
public struct VideoComposition: Sendable, Equatable {
  public var renderSize: FrameGeometry
  public var frameDuration: MediaTime
  public var background: BGRA
  public var scaleMethod: ScaleMethod

  public init(
    renderSize: FrameGeometry, frameDuration: MediaTime, background: BGRA = BGRA(r: 0, g: 0, b: 0),
    scaleMethod: ScaleMethod = .bicubic
  ) {
    self.renderSize = renderSize
    self.frameDuration = frameDuration
    self.background = background
    self.scaleMethod = scaleMethod
  }
}

/// The sound of a composition: every item's sound resampled and remixed to one rate and
/// channel count; stills and silent movies give silence.
public struct AudioMix: Sendable, Equatable {
  public var sampleRate: Int
  public var channels: Int

  public init(sampleRate: Int = 48_000, channels: Int = 2) {
    self.sampleRate = sampleRate
    self.channels = channels
  }
}

/// Where each item of a composition plays: what part of its source, and when on the
/// composition's timeline; and how long the whole is. Made from the items' own
/// durations (`CompositionTimeline.probe` opens them).
public struct CompositionTimeline: Sendable, Equatable {
  public struct Placement: Sendable, Equatable {
    public var item: CompositionItem
    /// Where the cut starts in the source (zero for a still).
    public var sourceStart: MediaTime
    public var duration: MediaTime
    /// Where it starts in the composition.
    public var start: MediaTime
    public var end: MediaTime { start + duration }
  }

  public let placements: [Placement]
  public let total: MediaTime
  public let composition: Composition

  /// - Parameter durations: each item's source duration (a still's is its own).
  /// - Throws: `RecordingOptionError` for a range outside its clip, or fades longer than
  ///   the items they overlap.
  public init(_ composition: Composition, sourceDurations durations: [MediaTime]) throws {
    precondition(durations.count == composition.items.count)
    guard !composition.items.isEmpty else { throw RecordingOptionError("nothing to compose: give at least one movie or still") }
    self.composition = composition
    var placements: [Placement] = []
    var position = MediaTime.zero
    let fade = composition.transition
    for (index, (item, sourceDuration)) in zip(composition.items, durations).enumerated() {
      let sourceStart: MediaTime
      let duration: MediaTime
      switch item.asset {
      case .still:
        sourceStart = .zero
        duration = item.stillDuration
      case .movie(let path):
        sourceStart = item.start ?? .zero
        let end = item.end ?? sourceDuration
        guard sourceStart < sourceDuration else {
          throw RecordingOptionError(
            "item '\(item)': START \(sourceStart.seconds) s is past the end of \(path) (\(Self.text(sourceDuration)))")
        }
        guard end <= sourceDuration else {
          throw RecordingOptionError(
            "item '\(item)': END \(end.seconds) s is past the end of \(path) (\(Self.text(sourceDuration)))")
        }
        duration = end - sourceStart
      }
      // A fade overlaps the neighbours: an item must be long enough for the fades at
      // both of its ends.
      let fades = (index > 0 ? fade : .zero) + (index < composition.items.count - 1 ? fade : .zero)
      if fades > duration {
        throw RecordingOptionError(
          "item '\(item)' lasts \(Self.text(duration)), shorter than its transitions (\(Self.text(fades)))")
      }
      if index > 0 { position = position - fade }
      placements.append(Placement(item: item, sourceStart: sourceStart, duration: duration, start: position))
      position = position + duration
    }
    total = position
    if composition.fadeIn + composition.fadeOut > total {
      throw RecordingOptionError(
        "--fade-in and --fade-out (\(Self.text(composition.fadeIn + composition.fadeOut))) are longer than the movie (\(Self.text(total)))")
    }
    self.placements = placements
  }

  /// Frames of `frameDuration` that start before the end: the movie's frame count.
  public func frameCount(frameDuration: MediaTime) -> Int {
    Int(Self.ceilDivide(total, frameDuration))
  }

  /// Sample frames at `rate` before the end: the sound track's length.
  public func sampleCount(rate: Int) -> Int { Int(Self.samples(total, rate: rate)) }

  /// `time` in samples at `rate`, rounded to the nearest.
  static func samples(_ time: MediaTime, rate: Int) -> Int64 {
    let numerator = Int128(time.value) * Int128(rate) * 2 + Int128(time.timescale)
    return Int64(numerator / (Int128(time.timescale) * 2))
  }

  /// ⌈a / b⌉ for positive times.
  static func ceilDivide(_ a: MediaTime, _ b: MediaTime) -> Int64 {
    let n = Int128(a.value) * Int128(b.timescale), d = Int128(b.value) * Int128(a.timescale)
    return Int64((n + d - 1) / d)
  }

  private static func text(_ time: MediaTime) -> String {
    let ms = (time.seconds * 1000).rounded() / 1000
    return "\(ms) s"
  }
}
