import CamfxCore

/// One item of a composition, as `camfx compose` names it: a movie, whole or cut
/// (`FILE[@START..END]`, either bound optional, END exclusive), or a still PNG held for
/// a while (`FILE.png[@DURATION]`, default 3 s). Like an `AVAsset` with the time range
/// an `AVMutableCompositionTrack` inserts from it.
///
///     a.mp4            the whole movie
///     a.mp4@5s..       from 5 s to its end
///     b.mkv@..1m30s    its first 90 s
///     c.mp4@1:02.5..1:10
///     title.png@2s     a still for 2 s
public struct CompositionItem: Sendable, Equatable, CustomStringConvertible {
  public enum Asset: Sendable, Equatable {
    case movie(path: String)
    case still(path: String)

    public var path: String {
      switch self {
      case .movie(let path), .still(let path): path
      }
    }
  }

  public var asset: Asset
  /// Where a movie's cut starts (from its first frame); nil: at its start.
  public var start: MediaTime?
  /// Where a movie's cut ends, exclusive; nil: at its end.
  public var end: MediaTime?
  /// How long a still is shown.
  public var stillDuration: MediaTime
  /// The text it was parsed from, which messages quote.
  public var spec: String?

  public static let defaultStillDuration = MediaTime(value: 3, timescale: 1)

  public init(movie path: String, start: MediaTime? = nil, end: MediaTime? = nil) {
    asset = .movie(path: path)
    self.start = start
    self.end = end
    stillDuration = Self.defaultStillDuration
  }

  public init(still path: String, duration: MediaTime = CompositionItem.defaultStillDuration) {
    asset = .still(path: path)
    stillDuration = duration
  }

  /// Image files other than PNG, which `compose` refuses by name rather than reading as
  /// one-frame movies.
  static let otherImageExtensions: Set<String> = ["jpg", "jpeg", "gif", "bmp", "webp", "tif", "tiff", "heic", "avif"]

  /// Parses one `compose` item.
  /// - Throws: `RecordingOptionError` naming what is wrong (an empty name, an image that
  ///   is not a PNG, a range that is not `START..END`, START not before END).
  public init(parsing text: String) throws {
    var path = text
    var suffix: String?
    if let at = text.lastIndex(of: "@") {
      path = String(text[..<at])
      suffix = String(text[text.index(after: at)...])
    }
    guard !path.isEmpty else { throw RecordingOptionError("item '\(text)' names no file") }
    let ext = path.split(separator: "/").last.flatMap { name in
      name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil
    } ?? ""
    if Self.otherImageExtensions.contains(ext) {
      throw RecordingOptionError("item '\(text)': stills must be PNG images (convert it, e.g. ffmpeg -i \(path) still.png)")
    }
    if ext == "png" {
      self.init(still: path)
      spec = text
      if let suffix {
        stillDuration = try Self.time(suffix, item: text, what: "a still's duration")
        guard stillDuration > .zero else { throw RecordingOptionError("item '\(text)': a still's duration must be more than 0") }
      }
      return
    }
    self.init(movie: path)
    spec = text
    guard let suffix else { return }
    guard let dots = suffix.firstRange(of: "..") else {
      throw RecordingOptionError("item '\(text)': expected FILE@START..END (either may be left out, e.g. @5s.. or @..1m30s)")
    }
    let from = String(suffix[..<dots.lowerBound]), to = String(suffix[dots.upperBound...])
    if !from.isEmpty { start = try Self.time(from, item: text, what: "START") }
    if !to.isEmpty { end = try Self.time(to, item: text, what: "END") }
    if let start, let end, start >= end {
      throw RecordingOptionError("item '\(text)': START (\(from)) must come before END (\(to))")
    }
    spec = text
  }

  /// A time as `--duration` takes it (`5s`, `1m30s`, `1:02.5`), or `0`.
  private static func time(_ text: String, item: String, what: String) throws -> MediaTime {
    do {
      return try RecordingLimits.parseDurationOrZero(text, option: what)
    } catch {
      throw RecordingOptionError("item '\(item)': \(what) '\(text)' is not a time such as 5s, 1m30s or 1:02.5")
    }
  }

  public var description: String {
    if let spec { return spec }
    switch asset {
    case .still(let path): return "\(path)@\(stillDuration.seconds)s"
    case .movie(let path):
      if start == nil && end == nil { return path }
      return "\(path)@\(start.map { "\($0.seconds)s" } ?? "")..\(end.map { "\($0.seconds)s" } ?? "")"
    }
  }
}
