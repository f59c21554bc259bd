/// The container formats camfx writes, chosen by the output file's extension.
public enum MovieContainer: String, Sendable, CaseIterable {
  case mp4, mov, mkv

  /// The libavformat muxer name.
  public var muxerName: String {
    switch self {
    case .mp4: "mp4"
    case .mov: "mov"
    case .mkv: "matroska"
    }
  }

  /// True for the ISO base media formats that have a `moov` index (and `+faststart`).
  public var isISOBMFF: Bool { self != .mkv }

  /// The container for `path`'s extension (case-insensitive).
  /// - Throws: `MediaSettingsError` "unsupported output extension ..." otherwise.
  public init(path: String) throws(MediaSettingsError) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let ext = name.contains(".") ? String(name.split(separator: ".").last!).lowercased() : ""
    guard let c = MovieContainer(rawValue: ext) else {
      let shown = ext.isEmpty ? "no extension" : "'.\(ext)'"
      throw MediaSettingsError("unsupported output file '\(path)' (\(shown)); use .mp4, .mov or .mkv")
    }
    self = c
  }
}
