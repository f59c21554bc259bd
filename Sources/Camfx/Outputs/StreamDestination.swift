import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia

/// Where a `LiveStreamOutput` sends its packets, and in which container: a network URL
/// (`rtmp://`, `rtmps://` as FLV; `srt://`, `udp://` as MPEG-TS), standard output
/// (`-`, MPEG-TS), or an HLS playlist written to a directory (`DIR/NAME.m3u8`).
///
///     rtmp://127.0.0.1/live/cam      flv     reconnects
///     srt://127.0.0.1:9000           mpegts  reconnects
///     -                              mpegts  ends with the pipe
///     hls/index.m3u8                 hls     ends on a write error
///
/// Any other scheme libavformat can write (`tcp://`, `rtp://` ...) needs a container
/// named with `format`, as ffmpeg's `-f`.
public struct StreamDestination: Sendable, Equatable {
  public enum Kind: String, Sendable, Codable {
    /// A network protocol: a lost connection is retried with back-off.
    case network
    /// Standard output: a closed pipe ends the output for good.
    case pipe
    /// An HLS playlist and its segments on disk.
    case hls
  }

  /// How an HLS output cuts and keeps its segments.
  public struct HLSOptions: Sendable, Equatable {
    public enum SegmentType: String, Sendable, CaseIterable { case ts, fmp4 }
    /// Target segment length in seconds (segments start on keyframes, so they last
    /// at least this, rounded up to a whole GOP).
    public var segmentSeconds: Double = 2
    /// Segments listed in the playlist; older ones are deleted.
    public var listSize = 6
    public var segmentType: SegmentType = .ts
    public init(segmentSeconds: Double = 2, listSize: Int = 6, segmentType: SegmentType = .ts) {
      self.segmentSeconds = segmentSeconds
      self.listSize = listSize
      self.segmentType = segmentType
    }
  }

  public let kind: Kind
  /// The URL as libavformat opens it (`pipe:1` for standard output).
  public let url: String
  /// The libavformat muxer (`flv`, `mpegts`, `hls`, ...).
  public let muxer: String
  /// The destination as the user gave it, with any password or query hidden.
  public let displayName: String
  public var hls: HLSOptions

  /// The muxer that holds the codecs: the segments' for HLS.
  public var containerMuxer: String {
    kind == .hls ? (hls.segmentType == .ts ? "mpegts" : "mp4") : muxer
  }

  /// True when a failure is retried (network outputs).
  public var reconnects: Bool { kind == .network }

  /// Reads one `-o` value that is not a movie file: `-`, a URL, or a `.m3u8` path.
  /// - Parameters:
  ///   - format: a libavformat muxer name that overrides the default container
  ///     (ignored for HLS).
  /// - Throws: `MediaSettingsError` naming the value: an unknown scheme without
  ///   `format`, an unknown format, a missing HLS directory.
  public init(parsing text: String, format: String? = nil, hls: HLSOptions = HLSOptions()) throws(MediaSettingsError) {
    self.hls = hls
    if let format {
      guard av_guess_format(format, nil, nil) != nil else {
        throw MediaSettingsError("unknown --format '\(format)' (a libavformat muxer name: mpegts, flv, matroska, nut, ...)")
      }
    }
    if text == "-" {
      kind = .pipe
      url = "pipe:1"
      muxer = format ?? "mpegts"
      displayName = "stdout"
      return
    }
    if let schemeEnd = text.firstRange(of: "://") {
      let scheme = text[..<schemeEnd.lowerBound].lowercased()
      guard !scheme.isEmpty, scheme.allSatisfy(Self.isSchemeCharacter) else {
        throw MediaSettingsError("invalid output URL '\(text)'")
      }
      guard text[schemeEnd.upperBound...].contains(where: { $0 != "/" }) else {
        throw MediaSettingsError("output URL '\(text)' has no host")
      }
      guard Self.writableProtocols.contains(scheme) else {
        throw MediaSettingsError(
          "libavformat cannot write to '\(scheme)://' URLs (it can write: \(Self.writableProtocols.sorted().joined(separator: ", ")))")
      }
      let defaultMuxer: String? =
        switch scheme {
        case "rtmp", "rtmps", "rtmpt", "rtmpts": "flv"
        case "srt", "udp", "rist": "mpegts"
        default: nil
        }
      guard let muxer = format ?? defaultMuxer else {
        throw MediaSettingsError("no container is known for '\(scheme)://' outputs; add --format NAME (e.g. mpegts, flv)")
      }
      try Self.checkAuthority(of: text, scheme: scheme, after: schemeEnd.upperBound)
      kind = .network
      url = text
      self.muxer = muxer
      displayName = Self.redacted(text)
      return
    }
    guard text.lowercased().hasSuffix(".m3u8") else {
      throw MediaSettingsError("'\(text)' is not a URL, '-' or an HLS playlist (.m3u8)")
    }
    kind = .hls
    url = text
    muxer = "hls"
    displayName = text
  }

  /// Checks `host[:port]` after `scheme://` as a connection would need it: a port is a
  /// number from 1 to 65535, SRT, UDP, RIST and TCP have no default port, and only
  /// they may leave the host out (a listener). Found now, not after the first retry.
  private static func checkAuthority(of text: String, scheme: String, after start: String.Index) throws(MediaSettingsError) {
    let shown = redacted(text)
    var authority = text[start...].prefix { $0 != "/" && $0 != "?" }
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var host = authority
    var port: Substring? = nil
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw MediaSettingsError("output URL '\(shown)' has an unclosed '['") }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let rest = authority[authority.index(after: close)...]
      if rest.hasPrefix(":") { port = rest.dropFirst() } else if !rest.isEmpty {
        throw MediaSettingsError("output URL '\(shown)' has '\(rest)' after its host")
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      port = authority[authority.index(after: colon)...]
    }
    let listens = ["srt", "udp", "rist", "tcp"].contains(scheme)
    if host.isEmpty && !listens { throw MediaSettingsError("output URL '\(shown)' has no host") }
    if let port {
      guard let number = Int(port), (1...65535).contains(number) else {
        throw MediaSettingsError("output URL '\(shown)': port '\(port)' is not a number from 1 to 65535")
      }
    } else if listens {
      throw MediaSettingsError("output URL '\(shown)' has no port (\(scheme):// has no default one), e.g. \(scheme)://127.0.0.1:9000")
    }
  }

  private static func isSchemeCharacter(_ c: Character) -> Bool {
    c.isLetter || c.isNumber || c == "+" || c == "-" || c == "."
  }

  /// True when `text` names a stream rather than a movie file (`-`, a URL, `.m3u8`).
  public static func isStream(_ text: String) -> Bool {
    text == "-" || text.contains("://") || text.lowercased().hasSuffix(".m3u8")
  }

  /// `rtmp://user:secret@host/app?key=x` → `rtmp://host/app`: passwords and query
  /// strings (SRT passphrases, tokens) stay out of status lines and logs.
  static func redacted(_ url: String) -> String {
    guard let schemeEnd = url.firstRange(of: "://") else { return url }
    var rest = url[schemeEnd.upperBound...]
    if let q = rest.firstIndex(of: "?") { rest = rest[..<q] }
    let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
    if let at = rest[..<hostEnd].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
    return String(url[..<schemeEnd.upperBound] + rest)
  }

  /// The output protocols of the libavformat this runs with.
  static let writableProtocols: Set<String> = {
    var names = Set<String>()
    var opaque: UnsafeMutableRawPointer? = nil
    while let name = avio_enum_protocols(&opaque, 1) { names.insert(String(cString: name)) }
    names.remove("file")
    names.remove("pipe")
    return names
  }()

  /// The protocol options this destination needs: SRT's linger (`srtLingerSeconds`),
  /// unless the URL gives its own.
  func protocolOptions(into options: FFmpegDictionary) throws(FFmpegError) {
    if let srtLingerSeconds, queryValue("linger") == nil { try options.set("linger", String(srtLingerSeconds)) }
  }

  /// Seconds an SRT stream's end may wait for its receiver's acknowledgement before the
  /// connection is closed anyway: the URL's `linger=` as libavformat reads it (a
  /// leading integer, else 0; below 0 is 0), else 2; nil for any other destination.
  var srtLingerSeconds: Int? {
    guard kind == .network, url.lowercased().hasPrefix("srt://") else { return nil }
    guard let text = queryValue("linger") else { return 2 }
    var digits = Substring(text)
    let negative = digits.hasPrefix("-")
    if negative || digits.hasPrefix("+") { digits = digits.dropFirst() }
    let value = Int(digits.prefix { $0.isASCII && $0.isNumber }) ?? 0
    return negative ? 0 : value
  }

  /// The value of `name=` among the URL's query pairs, if it is there.
  private func queryValue(_ name: String) -> Substring? {
    guard let query = url.firstIndex(of: "?") else { return nil }
    for pair in url[url.index(after: query)...].split(separator: "&") where pair.hasPrefix(name + "=") {
      return pair.dropFirst(name.count + 1)
    }
    return nil
  }

  /// The muxer options this destination needs: live FLV/TS settings, HLS segmenting.
  func muxerOptions(into options: FFmpegDictionary) throws(FFmpegError) {
    switch kind {
    case .hls:
      let base = String(url.dropLast(5))  // without ".m3u8"
      try options.set("hls_time", String(hls.segmentSeconds))
      try options.set("hls_list_size", String(hls.listSize))
      try options.set("hls_flags", "delete_segments+independent_segments+program_date_time")
      switch hls.segmentType {
      case .ts:
        try options.set("hls_segment_type", "mpegts")
        try options.set("hls_segment_filename", base + "-%05d.ts")
      case .fmp4:
        try options.set("hls_segment_type", "fmp4")
        try options.set("hls_segment_filename", base + "-%05d.m4s")
        let name = base.split(separator: "/").last.map(String.init) ?? base
        try options.set("hls_fmp4_init_filename", name + "-init.mp4")
      }
    case .network, .pipe:
      if muxer == "flv" { try options.set("flvflags", "no_duration_filesize") }
    }
  }
}
