/// What a fragmented MP4 written by camfx holds, read back from the file: its boxes
/// before the fragments, every fragment whose index can be trusted, what was damaged
/// between them, and the tail after the last one (a fragment torn by a crash).
///
///     ftyp | marker | moov | moof mdat | moof mdat | ~damaged~ | moof mdat | ... | moof md…  (torn)
///                                                                         ^ fragmentsEnd
///
/// A fragment is trusted when its `moof` parses and its samples tile its `mdat`
/// exactly (camfx's fragments hold one `mdat` each, filled by their samples and
/// nothing else), and its decode times follow the fragments before and after it.
/// After anything else the scan looks for the next `moof` that passes, so one bad
/// byte costs at most the fragment it is in.
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

  /// One fragment whose index parsed and whose samples tile its `mdat`.
  struct Fragment {
    /// From the `moof` to the end of its `mdat`.
    var range: Range<Int64>
    var tracks: [UInt32: TrackSamples]
    /// Where each track's samples start and end on its decode timeline (`tfdt` and
    /// `tfdt` plus the samples' durations).
    func span(of track: UInt32) -> (start: UInt64, end: UInt64)? {
      guard let samples = tracks[track], let start = samples.firstFragmentDecodeTime else { return nil }
      return (start, start &+ samples.mediaDuration)
    }
  }

  var kind: Kind
  var markerOffset: Int64
  var markerBox: [UInt8]
  var marker: FragmentedMovieMarker
  var moovOffset: Int64
  /// The `moov` written with the header (codec descriptions, no samples).
  var initialMovie: [UInt8]
  var tracks: [UInt32: TrackSamples] = [:]
  /// Trusted fragments, kept in the index.
  var fragments = 0
  /// Damaged stretches between the initial `moov` and the last trusted fragment.
  var losses: [FragmentedMovieFinisher.Loss] = []
  /// The end of the last trusted fragment: what follows is the tail.
  var fragmentsEnd: Int64
  /// True when the tail is a box cut off by the end of the file (a crash while a
  /// fragment was written, or nothing); false when it holds whole boxes that did not
  /// parse (damage in the last fragment).
  var tailIsTorn = true
  /// Where a final index from an interrupted finish begins (it is written again there).
  var staleIndexOffset: Int64?
  /// "video", "audio" ... for each track, in the index's order.
  var trackKinds: [String] = []
  /// The first video track's ID and media timescale.
  var videoTrack: UInt32?
  var videoTimescale: UInt32 = 0
  var fileSize: Int64

  private struct TrackDefaults {
    var duration: UInt32 = 0
    var size: UInt32 = 0
    var flags: UInt32 = 0
  }

  /// Reads the file open at `fd`.
  /// - Throws: `MP4FormatError` when it is not an MP4 that camfx writes fragmented.
  init(fd: Int32) throws(MP4FormatError) {
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
    let defaults = try Self.trackDefaults(initialMovie)
    for track in defaults.keys { tracks[track] = TrackSamples() }

    // Fragments, in file order; past anything that is not one, the next that parses.
    var found: [Fragment] = []
    var damaged: [Range<Int64>] = []
    var position = moov.end
    var tailStart = moov.end
    while position < file.fileSize {
      if let fragment = try Self.fragment(at: position, in: file, defaults: defaults) {
        found.append(fragment)
        position = fragment.range.upperBound
        tailStart = position
      } else if let header = try file.boxHeader(at: position), header.type == "free" || header.type == "skip",
        header.end <= file.fileSize
      {
        position = header.end
      } else if let next = try Self.nextFragment(after: position, in: file, defaults: defaults) {
        damaged.append(position..<next.range.lowerBound)
        position = next.range.lowerBound
      } else {
        break
      }
    }

    // Decode times must run forward: a fragment whose `tfdt` or durations were hit
    // overlaps a neighbour, and the one whose own neighbours disagree with it goes.
    var kept: [Fragment] = []
    for (i, fragment) in found.enumerated() {
      guard let previous = kept.last, !Self.follows(fragment, previous) else {
        kept.append(fragment)
        continue
      }
      let next = i + 1 < found.count ? found[i + 1] : nil
      let beforePrevious = kept.count >= 2 ? kept[kept.count - 2] : nil
      let previousIsWrong =
        (beforePrevious.map { Self.follows(fragment, $0) } ?? true) && next.map { Self.meets(fragment, $0) } == true
      if previousIsWrong {
        damaged.append(kept.removeLast().range)
        kept.append(fragment)
      } else {
        damaged.append(fragment.range)
      }
    }

    let headers = try Self.trackHeaders(initialMovie)
    trackKinds = headers.map(\.kind)
    let video = headers.first { $0.kind == "video" }
    videoTrack = video?.id
    videoTimescale = video?.timescale ?? 0
    let timeline = video ?? headers.first
    for fragment in kept {
      for (track, samples) in fragment.tracks { Self.append(samples, to: &tracks[track, default: TrackSamples()]) }
    }
    fragments = kept.count
    fragmentsEnd = kept.last?.range.upperBound ?? moov.end
    losses = Self.losses(
      damaged, kept: kept, upTo: fragmentsEnd, track: timeline?.id ?? 1, timescale: timeline?.timescale ?? 0)

    // The tail: a box cut off by the end of the file, an index from an interrupted
    // finish, or whole boxes that did not parse.
    let tail = max(tailStart, fragmentsEnd)
    if tail < file.fileSize, let header = try file.boxHeader(at: tail) {
      if header.type == "moov" && header.end == file.fileSize {
        staleIndexOffset = tail
      } else {
        tailIsTorn = header.end > file.fileSize || !Self.walksToEnd(from: tail, in: file)
      }
    }
  }

  /// True when `fragment` starts, on every track the two share, no earlier than `previous` ends.
  private static func follows(_ fragment: Fragment, _ previous: Fragment) -> Bool {
    for track in fragment.tracks.keys {
      guard let a = previous.span(of: track), let b = fragment.span(of: track) else { continue }
      if b.start < a.end { return false }
    }
    return true
  }

  /// True when `next` starts exactly where `fragment` ends on every shared track (as
  /// consecutive fragments of a recording do).
  private static func meets(_ fragment: Fragment, _ next: Fragment) -> Bool {
    for track in fragment.tracks.keys {
      guard let a = fragment.span(of: track), let b = next.span(of: track) else { continue }
      if b.start != a.end { return false }
    }
    return true
  }

  /// True when whole boxes follow each other from `offset` to the end of the file.
  private static func walksToEnd(from offset: Int64, in file: MP4FileReader) -> Bool {
    var position = offset
    while position < file.fileSize {
      guard let header = try? file.boxHeader(at: position), header.end <= file.fileSize else { return false }
      position = header.end
    }
    return true
  }

  /// The trusted fragment that starts at `offset`, or nil.
  private static func fragment(
    at offset: Int64, in file: MP4FileReader, defaults: [UInt32: TrackDefaults]
  ) throws(MP4FormatError) -> Fragment? {
    guard let header = try file.boxHeader(at: offset), header.type == "moof", header.end <= file.fileSize,
      header.size <= 64 << 20,
      let mdat = try file.boxHeader(at: header.end), mdat.type == "mdat", mdat.end <= file.fileSize,
      let moof = try? file.readBox(header),
      let (tracks, data) = try? parseFragment(moof, at: header.offset, defaults: defaults, mdat: mdat)
    else { return nil }
    // The samples fill the mdat exactly: a size or offset that was hit leaves a hole or an overlap.
    var end = mdat.payloadOffset
    for range in data.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      guard range.lowerBound == end else { return nil }
      end = range.upperBound
    }
    guard end == mdat.end else { return nil }
    return Fragment(range: header.offset..<mdat.end, tracks: tracks)
  }

  /// The next trusted fragment whose `moof` starts after `position`.
  private static func nextFragment(
    after position: Int64, in file: MP4FileReader, defaults: [UInt32: TrackDefaults]
  ) throws(MP4FormatError) -> Fragment? {
    let moof: [UInt8] = Array("moof".utf8)
    var typeAt = position + 1 + 4  // a box's type is 4 bytes into it
    let window = 1 << 20
    while typeAt + 4 <= file.fileSize {
      let bytes = try file.read(at: typeAt, count: window + 3)
      guard bytes.count >= 4 else { break }
      for i in 0...(bytes.count - 4)
      where bytes[i] == moof[0] && bytes[i + 1] == moof[1] && bytes[i + 2] == moof[2] && bytes[i + 3] == moof[3] {
        if let fragment = try fragment(at: typeAt + Int64(i) - 4, in: file, defaults: defaults) { return fragment }
      }
      typeAt += Int64(bytes.count - 3)
    }
    return nil
  }

  /// Each damaged stretch with the gap it leaves on `track`'s timeline.
  private static func losses(
    _ damaged: [Range<Int64>], kept: [Fragment], upTo end: Int64, track: UInt32, timescale: UInt32
  ) -> [FragmentedMovieFinisher.Loss] {
    var merged: [Range<Int64>] = []
    for range in damaged.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.lowerBound < end {
      if let last = merged.last, last.upperBound >= range.lowerBound {
        merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    let origin = kept.first?.span(of: track)?.start ?? 0
    return merged.map { bytes in
      let before = kept.last { $0.range.upperBound <= bytes.lowerBound }?.span(of: track)
      let after = kept.first { $0.range.lowerBound >= bytes.upperBound }?.span(of: track)
      var seconds: Range<Double>? = nil
      if timescale > 0, let after, after.start >= origin {
        let from = Double((before?.end ?? origin) &- origin) / Double(timescale)
        let to = Double(after.start - origin) / Double(timescale)
        if to >= from { seconds = from..<to }
      }
      return FragmentedMovieFinisher.Loss(bytes: bytes, seconds: seconds)
    }
  }

  /// What the initial index says of one track.
  struct TrackHeader {
    var id: UInt32
    /// "video", "audio" or "data", from its `hdlr`.
    var kind: String
    /// Its media timescale (`mdhd`); 0 when unreadable.
    var timescale: UInt32
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
        }
      }
      result.append(header)
    }
    return result
  }

  private static func append(_ added: TrackSamples, to track: inout TrackSamples) {
    // A fragment that starts later than the samples before it end (`tfdt` after a
    // gap) keeps the gap: the sample before it lasts until then, as a regular MP4
    // holds a gap in a track.
    if let start = track.firstFragmentDecodeTime, let next = added.firstFragmentDecodeTime, !track.durations.isEmpty {
      let (end, overflow) = start.addingReportingOverflow(track.mediaDuration)
      if !overflow && next > end { track.lengthenLastSample(by: next - end) }
    }
    track.append(added)
  }

  /// `trex` defaults per track ID, from the initial `moov`'s `mvex`.
  private static func trackDefaults(_ moov: [UInt8]) throws(MP4FormatError) -> [UInt32: TrackDefaults] {
    var result: [UInt32: TrackDefaults] = [:]
    for child in try mp4Children(of: moov, payloadStart: 8) where child.type == "mvex" {
      for trex in try mp4Children(of: moov, payloadStart: child.range.lowerBound + 8, end: child.range.upperBound)
      where trex.type == "trex" {
        var r = MP4ByteReader(moov, at: trex.range.lowerBound + 8)
        _ = try r.versionAndFlags()
        let track = try r.u32()
        _ = try r.u32()  // default sample description index
        result[track] = TrackDefaults(duration: try r.u32(), size: try r.u32(), flags: try r.u32())
      }
    }
    guard !result.isEmpty else { throw MP4FormatError("the index has no 'mvex': not a fragmented MP4") }
    return result
  }

  /// The samples of one `moof`, whose data must lie inside `mdat`, and the byte range
  /// of each `trun`'s samples.
  private static func parseFragment(
    _ moof: [UInt8], at moofOffset: Int64, defaults: [UInt32: TrackDefaults], mdat: MP4FileReader.BoxHeader
  ) throws(MP4FormatError) -> ([UInt32: TrackSamples], [Range<Int64>]) {
    var result: [UInt32: TrackSamples] = [:]
    var data: [Range<Int64>] = []
    var previousDataEnd = moofOffset
    for traf in try mp4Children(of: moof, payloadStart: 8) where traf.type == "traf" {
      let children = try mp4Children(of: moof, payloadStart: traf.range.lowerBound + 8, end: traf.range.upperBound)
      guard let tfhd = children.first(where: { $0.type == "tfhd" }) else { throw MP4FormatError("'traf' without 'tfhd'") }
      var r = MP4ByteReader(moof, at: tfhd.range.lowerBound + 8)
      let (_, tfhdFlags) = try r.versionAndFlags()
      let track = try r.u32()
      guard var d = defaults[track] else { throw MP4FormatError("fragment of unknown track \(track)") }
      var base = tfhdFlags & 0x2_0000 != 0 ? moofOffset : previousDataEnd
      if tfhdFlags & 0x1 != 0 { base = Int64(bitPattern: try r.u64()) }
      guard base >= 0, base <= mdat.end else { throw MP4FormatError("fragment data outside its 'mdat'") }
      if tfhdFlags & 0x2 != 0 { _ = try r.u32() }
      if tfhdFlags & 0x8 != 0 { d.duration = try r.u32() }
      if tfhdFlags & 0x10 != 0 { d.size = try r.u32() }
      if tfhdFlags & 0x20 != 0 { d.flags = try r.u32() }
      var samples = result[track] ?? TrackSamples()
      if let tfdt = children.first(where: { $0.type == "tfdt" }) {
        var t = MP4ByteReader(moof, at: tfdt.range.lowerBound + 8)
        let (version, _) = try t.versionAndFlags()
        let time = version == 1 ? try t.u64() : UInt64(try t.u32())
        if samples.firstFragmentDecodeTime == nil { samples.firstFragmentDecodeTime = time }
      }
      var dataPosition = base
      for trun in children where trun.type == "trun" {
        var t = MP4ByteReader(moof, at: trun.range.lowerBound + 8)
        let (_, flags) = try t.versionAndFlags()
        let count = try t.u32()
        if flags & 0x1 != 0 { dataPosition = base + Int64(Int32(bitPattern: try t.u32())) }
        let firstFlags: UInt32? = flags & 0x4 != 0 ? try t.u32() : nil
        let start = dataPosition
        // The table must be in the box, and the samples (at least a byte each) in the mdat.
        let fieldsPerSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
        guard Int64(count) * Int64(fieldsPerSample * 4) <= Int64(t.remaining), Int64(count) <= mdat.end - start
        else { throw MP4FormatError("a 'trun' with more samples than its fragment holds") }
        for i in 0..<count {
          let duration = flags & 0x100 != 0 ? try t.u32() : d.duration
          let size = flags & 0x200 != 0 ? try t.u32() : d.size
          var sampleFlags = flags & 0x400 != 0 ? try t.u32() : d.flags
          if i == 0, let firstFlags { sampleFlags = firstFlags }
          var offset: Int32 = 0
          if flags & 0x800 != 0 {
            // Some muxers write negative offsets in version 0 too: read the bits as signed.
            offset = Int32(bitPattern: try t.u32())
          }
          // sample_is_non_sync_sample is bit 16 of the sample flags.
          samples.appendSample(
            duration: duration, size: size, compositionOffset: offset, sync: sampleFlags & 0x1_0000 == 0)
          dataPosition += Int64(size)
          guard dataPosition <= mdat.end else { throw MP4FormatError("fragment data outside its 'mdat'") }
        }
        guard start >= mdat.payloadOffset, dataPosition <= mdat.end else {
          throw MP4FormatError("fragment data outside its 'mdat'")
        }
        if count > 0 {
          samples.chunks.append((start, count))
          data.append(start..<dataPosition)
        }
      }
      previousDataEnd = dataPosition
      result[track] = samples
    }
    return (result, data)
  }
}
