/// What a fragmented MP4 written by camfx holds, read back from the file: its boxes
/// before the fragments, every fragment whose index can be trusted, what was damaged
/// between them, and the tail after the last one (a fragment torn by a crash).
///
///     ftyp | marker | moov | moof mdat | moof mdat | ~damaged~ | moof mdat | ... | moof md…  (torn)
///                                                                         ^ fragmentsEnd
///
/// Repair decides from the media and from what is redundant between fragments, not
/// from one header field:
/// - a fragment is kept when its `moof` parses (box by box, each filled exactly by its
///   fields) and its samples tile its `mdat` (camfx's fragments hold one `mdat` each,
///   filled by their samples and nothing else). Where they do not, the `mdat`'s end is
///   taken from the samples, the data offsets from the order of the tracks, and an
///   H.264/HEVC track's sizes from its NAL units (`SampleFraming`); a track whose
///   samples cannot be found again (sound has no framing) is left out alone;
/// - a keyframe is what its NAL units say, not what its flags say;
/// - a fragment's `tfdt` is redundant with the previous fragment's end: one that
///   disagrees with both neighbours is re-derived (`FragmentTimeline`), so a damaged
///   decode time neither drops the fragment nor invents hours;
/// - a fragment is torn only when the file ends before its `mdat` does. After bytes
///   that are no fragment the scan looks for the next `moof` that passes, so one bad
///   byte costs at most the fragment it is in.
struct FragmentedMovieScan {
  /// The samples one track's fragments hold, in decode order.
  struct TrackSamples {
    var durations: [UInt32] = []
    var sizes: [UInt32] = []
    var compositionOffsets: [Int32] = []
    /// 1-based numbers of the sync samples (keyframes).
    var syncSamples: [UInt32] = []
    /// Contiguous runs of samples in the file: one per `trun`.
    var chunks: [(offset: Int64, samples: UInt32)] = []
    /// `tfdt` of the first fragment.
    var firstFragmentDecodeTime: UInt64? = nil
    /// The sum of `durations`, kept as samples are added (a day of fragments would
    /// make summing them again for each one quadratic).
    private(set) var mediaDuration: UInt64 = 0

    mutating func appendSample(duration: UInt32, size: UInt32, compositionOffset: Int32, sync: Bool) {
      durations.append(duration)
      sizes.append(size)
      compositionOffsets.append(compositionOffset)
      mediaDuration += UInt64(duration)
      if sync { syncSamples.append(UInt32(durations.count)) }
    }

    /// Makes the last sample last `extra` ticks longer (a gap after it).
    mutating func lengthenLastSample(by extra: UInt64) {
      guard let last = durations.indices.last else { return }
      let longer = UInt32(clamping: UInt64(durations[last]) + extra)
      mediaDuration += UInt64(longer - durations[last])
      durations[last] = longer
    }

    mutating func append(_ added: TrackSamples) {
      let base = UInt32(durations.count)
      durations += added.durations
      sizes += added.sizes
      compositionOffsets += added.compositionOffsets
      syncSamples += added.syncSamples.map { $0 + base }
      chunks += added.chunks
      mediaDuration += added.mediaDuration
      if firstFragmentDecodeTime == nil { firstFragmentDecodeTime = added.firstFragmentDecodeTime }
    }
  }

  /// The state a file is in.
  enum Kind { case fragmented, finished }

  /// A fragment that is kept: its place and its samples, per track, as repaired.
  struct KeptFragment {
    var range: Range<Int64>
    var runs: [MovieFragment.Run]
    /// Tracks whose samples in this fragment could not be found again (left out).
    var lostTracks: [UInt32] = []
    /// True when damaged bytes lie between it and the fragment (or the index) before it.
    var followsDamage = false
    var sequence: UInt32?
    /// What was read another way than its header said.
    var repair: String?

    func run(of track: UInt32) -> MovieFragment.Run? { runs.first { $0.track == track } }
  }

  var kind: Kind
  var markerOffset: Int64
  var markerBox: [UInt8]
  var marker: FragmentedMovieMarker
  var moovOffset: Int64
  /// The `moov` written with the header (codec descriptions, no samples).
  var initialMovie: [UInt8]
  var tracks: [UInt32: TrackSamples] = [:]
  /// Fragments kept in the index.
  var fragments = 0
  /// What was left out between the initial `moov` and the last kept fragment, and
  /// damaged boxes after it.
  var losses: [FragmentedMovieFinisher.Loss] = []
  /// What was read another way than its header said (nothing was lost by it).
  var repairs: [String] = []
  /// The end of the last kept fragment: what follows is the tail.
  var fragmentsEnd: Int64
  /// True when the tail is a fragment cut off by the end of the file (a crash while
  /// it was written), or nothing; false when it holds bytes that are no fragment.
  var tailIsTorn = true
  /// Where a final index from an interrupted finish begins (it is written again there).
  var staleIndexOffset: Int64?
  /// "video", "audio" ... for each track, in the index's order.
  var trackKinds: [String] = []
  /// The first video track's ID and media timescale.
  var videoTrack: UInt32?
  var videoTimescale: UInt32 = 0
  var fileSize: Int64

  /// Reads the file open at `fd`.
  /// - Parameter repairing: check what the file says twice (decode times against the
  ///   neighbours, keyframes against the pictures, B-frame offsets against each other)
  ///   and re-derive what disagrees: for a file a crash or a bad disk left (`camfx
  ///   repair`), not for the one a recording has just written.
  /// - Throws: `MP4FormatError` when it is not an MP4 that camfx writes fragmented.
  init(fd: Int32, repairing: Bool) throws(MP4FormatError) {
    let file = try MP4FileReader(fd: fd)
    fileSize = file.fileSize
    let notCamfx = MP4FormatError("not a fragmented MP4 written by camfx")
    guard let ftyp = try file.boxHeader(at: 0), ftyp.type == "ftyp", ftyp.end < file.fileSize else { throw notCamfx }
    guard let markerHeader = try file.boxHeader(at: ftyp.end), markerHeader.type == "free",
      markerHeader.size <= Int64(FragmentedMovieMarker.size)
    else { throw notCamfx }
    markerOffset = markerHeader.offset
    markerBox = try file.read(at: markerHeader.offset, count: FragmentedMovieMarker.size)
    guard let marker = FragmentedMovieMarker.parse(markerBox) else { throw notCamfx }
    self.marker = marker
    if markerHeader.size == Int64(FragmentedMovieMarker.finishedFreeSize) {
      // Finished: the mdat that covers the fragments is followed by the final index,
      // which ends the file. If it is not (a finish interrupted after the marker was
      // turned), the fragments are read again below and the index written anew.
      if let mdat = try file.boxHeader(at: markerHeader.end), mdat.type == "mdat",
        let moov = try file.boxHeader(at: mdat.end), moov.type == "moov", moov.end == file.fileSize
      {
        kind = .finished
        moovOffset = 0
        initialMovie = []
        fragmentsEnd = file.fileSize
        return
      }
    } else if markerHeader.size != Int64(FragmentedMovieMarker.size) {
      throw notCamfx
    }
    kind = .fragmented
    let moovAt = markerHeader.offset + Int64(FragmentedMovieMarker.size)
    guard let moov = try file.boxHeader(at: moovAt), moov.type == "moov", moov.end <= file.fileSize else {
      throw MP4FormatError("the file was cut before its first index ('moov') was complete: nothing to keep")
    }
    moovOffset = moov.offset
    initialMovie = try file.readBox(moov)
    let headers = try Self.trackHeaders(initialMovie)
    trackKinds = headers.map(\.kind)
    let video = headers.first { $0.kind == "video" }
    videoTrack = video?.id
    videoTimescale = video?.timescale ?? 0
    var reader = FragmentReader(
      file: file, defaults: try Self.trackDefaults(initialMovie),
      framing: Dictionary(headers.map { ($0.id, $0.framing) }, uniquingKeysWith: { a, _ in a }),
      soundTracks: Set(headers.filter { $0.kind == "audio" }.map(\.id)), checksKeyframes: repairing)
    for track in reader.defaults.keys { tracks[track] = TrackSamples() }

    // Fragments, in file order; past anything that is not one, the next that is.
    var kept: [KeptFragment] = []
    var damaged: [Range<Int64>] = []
    var position = moov.end
    var damageBefore = false
    var tailStart: Int64? = nil
    while position < file.fileSize {
      switch try reader.fragment(at: position) {
      case .kept(var fragment):
        fragment.followsDamage = damageBefore
        damageBefore = false
        position = fragment.range.upperBound
        kept.append(fragment)
      case .torn, .notAFragment:
        if let header = try file.boxHeader(at: position), header.type == "free" || header.type == "skip",
          header.end <= file.fileSize
        {
          position = header.end
          continue
        }
        if let header = try file.boxHeader(at: position), header.type == "moov", header.end == file.fileSize {
          staleIndexOffset = position
          position = file.fileSize
          continue
        }
        // Damage up to the next fragment that can be read; or, with none after it, the
        // tail (a fragment the file ends in is torn by a crash, unless one follows:
        // then a size in it was damaged).
        if let next = try reader.nextFragmentStart(after: position) {
          damaged.append(position..<next)
          damageBefore = true
          position = next
        } else {
          tailStart = position
          position = file.fileSize
        }
      }
    }
    fragmentsEnd = kept.last?.range.upperBound ?? moov.end
    if let tailStart, tailStart < file.fileSize {
      tailIsTorn = reader.isTorn(from: tailStart)
      if !tailIsTorn { damaged.append(tailStart..<file.fileSize) }
    }

    // Decode times and durations, checked against the neighbours and re-derived.
    var timeline = FragmentTimeline(
      fragments: kept, tracks: headers.map(\.id),
      timescales: Dictionary(headers.map { ($0.id, $0.timescale) }, uniquingKeysWith: { a, _ in a }),
      delays: marker.firstDecodeTimes.mapValues { -$0 })
    if repairing { timeline.repair() }
    kept = timeline.fragments
    repairs = reader.repairs + timeline.repairs

    for fragment in kept {
      for run in fragment.runs { Self.append(run, to: &tracks[run.track, default: TrackSamples()]) }
    }
    fragments = kept.count
    let timelineTrack = video ?? headers.first
    losses = Self.losses(
      damaged, kept: kept, lostSamples: timeline.lostSamples, timelineTrack: timelineTrack?.id ?? 1, headers: headers,
      marker: marker)
  }

  /// Adds one fragment's samples of a track to what the index will list.
  private static func append(_ run: MovieFragment.Run, to track: inout TrackSamples) {
    var added = TrackSamples()
    added.firstFragmentDecodeTime = run.decodeTime
    added.chunks = run.chunks
    for i in 0..<run.count {
      // sample_is_non_sync_sample is bit 16 of the sample flags.
      added.appendSample(
        duration: run.durations[i], size: run.sizes[i], compositionOffset: run.compositionOffsets[i],
        sync: run.sampleFlags[i] & 0x1_0000 == 0)
    }
    // A fragment that starts later than the samples before it end (`tfdt` after a
    // gap, or after a fragment that was left out) keeps the gap: the sample before it
    // lasts until then, as a regular MP4 holds a gap in a track.
    if let start = track.firstFragmentDecodeTime, let next = added.firstFragmentDecodeTime, !track.durations.isEmpty {
      let (end, overflow) = start.addingReportingOverflow(track.mediaDuration)
      if !overflow && next > end { track.lengthenLastSample(by: next - end) }
    }
    track.append(added)
  }

  /// Each damaged stretch, and each track left out of a kept fragment, with the time
  /// it covers in the file's timeline (seconds from the recording's start).
  private static func losses(
    _ damaged: [Range<Int64>], kept: [KeptFragment],
    lostSamples: [(fragment: Int, track: UInt32, from: UInt64, to: UInt64)], timelineTrack: UInt32,
    headers: [TrackHeader], marker: FragmentedMovieMarker
  ) -> [FragmentedMovieFinisher.Loss] {
    // A decode time of a track's fragments (which start at 0 where its first packet,
    // at `firstDecodeTimes`, is) as seconds of the file.
    func seconds(_ t: UInt64, _ track: UInt32) -> Double? {
      guard let scale = headers.first(where: { $0.id == track })?.timescale, scale > 0, let t = Int64(exactly: t) else {
        return nil
      }
      return max(0, Double(t + (marker.firstDecodeTimes[track] ?? 0)) / Double(scale))
    }
    func start(_ run: MovieFragment.Run) -> Double? { seconds(run.decodeTime ?? 0, run.track) }
    func end(_ run: MovieFragment.Run) -> Double? { seconds((run.decodeTime ?? 0) &+ run.totalDuration, run.track) }
    /// The run a fragment's time is read from: the timeline track's, else its first.
    func span(_ fragment: KeptFragment) -> MovieFragment.Run? { fragment.run(of: timelineTrack) ?? fragment.runs.first }
    var merged: [Range<Int64>] = []
    for range in damaged.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = merged.last, last.upperBound >= range.lowerBound {
        merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    var result: [FragmentedMovieFinisher.Loss] = merged.map { bytes in
      let before = kept.last { $0.range.upperBound <= bytes.lowerBound }.flatMap(span)
      let after = kept.first { $0.range.lowerBound >= bytes.upperBound }.flatMap(span)
      let from = before.map { end($0) } ?? seconds(0, timelineTrack)
      return FragmentedMovieFinisher.Loss(bytes: bytes, from: from ?? nil, to: after.flatMap(start))
    }
    for fragment in kept where !fragment.lostTracks.isEmpty {
      let run = span(fragment)
      result.append(
        FragmentedMovieFinisher.Loss(
          bytes: fragment.range, from: run.flatMap(start), to: run.flatMap(end),
          tracks: fragment.lostTracks.map { track in headers.first { $0.id == track }?.kind ?? "data" }))
    }
    // Pictures left out: one loss per fragment and track, from the first to the last.
    var pictures: [Int64: (track: UInt32, from: UInt64, to: UInt64, count: Int, fragment: Int)] = [:]
    for lost in lostSamples {
      let key = Int64(lost.fragment) << 32 | Int64(lost.track)
      if var known = pictures[key] {
        known.from = min(known.from, lost.from)
        known.to = max(known.to, lost.to)
        known.count += 1
        pictures[key] = known
      } else {
        pictures[key] = (lost.track, lost.from, lost.to, 1, lost.fragment)
      }
    }
    for lost in pictures.values {
      result.append(
        FragmentedMovieFinisher.Loss(
          bytes: kept[lost.fragment].range, from: seconds(lost.from, lost.track), to: seconds(lost.to, lost.track),
          tracks: [headers.first { $0.id == lost.track }?.kind ?? "data"], pictures: lost.count))
    }
    return result.sorted { $0.bytes.lowerBound < $1.bytes.lowerBound }
  }

  /// What the initial index says of one track.
  struct TrackHeader {
    var id: UInt32
    /// "video", "audio" or "data", from its `hdlr`.
    var kind: String
    /// Its media timescale (`mdhd`); 0 when unreadable.
    var timescale: UInt32
    /// How its samples frame themselves (`stsd`'s first entry).
    var framing = SampleFraming.opaque
  }

  /// Each `trak` of `moov`, in order.
  private static func trackHeaders(_ moov: [UInt8]) throws(MP4FormatError) -> [TrackHeader] {
    var result: [TrackHeader] = []
    for trak in try mp4Children(of: moov, payloadStart: 8) where trak.type == "trak" {
      let children = try mp4Children(of: moov, payloadStart: trak.range.lowerBound + 8, end: trak.range.upperBound)
      guard let tkhd = children.first(where: { $0.type == "tkhd" }), let mdia = children.first(where: { $0.type == "mdia" })
      else { continue }
      var header = TrackHeader(id: try MovieIndexBuilder.trackID(Array(moov[tkhd.range])), kind: "data", timescale: 0)
      for box in try mp4Children(of: moov, payloadStart: mdia.range.lowerBound + 8, end: mdia.range.upperBound) {
        if box.type == "mdhd" {
          header.timescale = try MovieIndexBuilder.timescale(ofHeader: Array(moov[box.range]), timescaleField: 2)
        } else if box.type == "hdlr" {
          var r = MP4ByteReader(moov, at: box.range.lowerBound + 16)
          switch FourCC(rawValue: try r.u32()) {
          case "vide": header.kind = "video"
          case "soun": header.kind = "audio"
          default: break
          }
        } else if box.type == "minf" {
          header.framing = sampleFraming(moov, minf: box.range)
        }
      }
      result.append(header)
    }
    return result
  }

  /// The framing of the first sample entry in `minf`'s `stsd`: H.264 (`avc1`/`avc3`
  /// with `avcC`) or HEVC (`hvc1`/`hev1` with `hvcC`), else opaque.
  private static func sampleFraming(_ moov: [UInt8], minf: Range<Int>) -> SampleFraming {
    guard let stbl = (try? mp4Children(of: moov, payloadStart: minf.lowerBound + 8, end: minf.upperBound))?
      .first(where: { $0.type == "stbl" }),
      let stsd = (try? mp4Children(of: moov, payloadStart: stbl.range.lowerBound + 8, end: stbl.range.upperBound))?
        .first(where: { $0.type == "stsd" }),
      let entry = (try? mp4Children(of: moov, payloadStart: stsd.range.lowerBound + 16, end: stsd.range.upperBound))?.first
    else { return .opaque }
    let codec: SampleFraming.Codec
    switch entry.type {
    case "avc1", "avc3": codec = .h264
    case "hvc1", "hev1": codec = .hevc
    default: return .opaque
    }
    // A visual sample entry's boxes follow its 78 bytes of fields.
    guard let config = (try? mp4Children(of: moov, payloadStart: entry.range.lowerBound + 8 + 78, end: entry.range.upperBound))?
      .first(where: { $0.type == (codec == .h264 ? "avcC" : "hvcC") })
    else { return .opaque }
    // lengthSizeMinusOne: avcC byte 4, hvcC byte 21 (low two bits).
    let at = config.range.lowerBound + 8 + (codec == .h264 ? 4 : 21)
    guard at < config.range.upperBound else { return .opaque }
    let lengthSize = Int(moov[at] & 0x3) + 1
    return lengthSize == 3 ? .opaque : SampleFraming(codec: codec, lengthSize: lengthSize)
  }

  /// `trex` defaults per track ID, from the initial `moov`'s `mvex`.
  private static func trackDefaults(_ moov: [UInt8]) throws(MP4FormatError) -> [UInt32: MovieFragment.TrackDefaults] {
    var result: [UInt32: MovieFragment.TrackDefaults] = [:]
    for child in try mp4Children(of: moov, payloadStart: 8) where child.type == "mvex" {
      for trex in try mp4Children(of: moov, payloadStart: child.range.lowerBound + 8, end: child.range.upperBound)
      where trex.type == "trex" {
        var r = MP4ByteReader(moov, at: trex.range.lowerBound + 8)
        _ = try r.versionAndFlags()
        let track = try r.u32()
        _ = try r.u32()  // default sample description index
        result[track] = MovieFragment.TrackDefaults(duration: try r.u32(), size: try r.u32(), flags: try r.u32())
      }
    }
    guard !result.isEmpty else { throw MP4FormatError("the index has no 'mvex': not a fragmented MP4") }
    return result
  }
}
