/// Finds and reads the fragments of a camfx fragmented MP4 (`moof` then `mdat`), one
/// at a time, and repairs what one damaged header field breaks, from what the file
/// says twice:
/// - a `moof` is known by its first box (`mfhd`) when its own header was hit, and
///   ends where its boxes do or where the `mdat` header is;
/// - an `mdat` ends where its samples do when its size was hit;
/// - data offsets follow the order of the tracks; an H.264/HEVC track's sample sizes
///   follow its NAL units; a sound track whose sizes were hit is left out alone;
/// - a keyframe is what its NAL units say.
struct FragmentReader {
  let file: MP4FileReader
  let defaults: [UInt32: MovieFragment.TrackDefaults]
  let framing: [UInt32: SampleFraming]
  /// Sound tracks: every sample is a sync sample, and a sample starts with the same
  /// first byte as the others (AAC's first syntax element, Opus's table of contents).
  let soundTracks: Set<UInt32>
  /// Whether keyframe flags are checked against the pictures (repair).
  let checksKeyframes: Bool
  /// The flags each track's boxes had in the fragments read so far.
  private var usual = MovieFragment.UsualFlags()
  /// What was read another way than its header said, for the report.
  private(set) var repairs: [String] = []
  private var fragmentsRead = 0

  init(
    file: MP4FileReader, defaults: [UInt32: MovieFragment.TrackDefaults], framing: [UInt32: SampleFraming],
    soundTracks: Set<UInt32>, checksKeyframes: Bool
  ) {
    self.file = file
    self.defaults = defaults
    self.framing = framing
    self.soundTracks = soundTracks
    self.checksKeyframes = checksKeyframes
  }

  enum Result {
    case kept(FragmentedMovieScan.KeptFragment)
    /// The file ends inside the fragment that starts here.
    case torn
    case notAFragment
  }

  /// The largest `moof` taken as one (a second of 8K at 240 fps is far below it).
  private static let maximumMoofSize: Int64 = 64 << 20

  /// The fragment at `offset`.
  mutating func fragment(at offset: Int64) throws(MP4FormatError) -> Result {
    guard let moofEnd = try moofEnd(at: offset) else {
      let starts = try startsFragment(at: offset)
      let end = try file.boxHeader(at: offset)?.end ?? .max
      return starts && end > file.fileSize ? .torn : .notAFragment
    }
    guard moofEnd + 8 <= file.fileSize, let mdat = try file.boxHeader(at: moofEnd) else { return .torn }
    let moof = try file.read(at: offset, count: Int(moofEnd - offset))
    let payload = mdat.payloadOffset
    var torn = mdat.end > file.fileSize
    let read = MovieFragment.parse(moof, at: offset, defaults: defaults, usual: usual) { fragment in
      if let layout = layout(of: fragment, at: offset, payload: payload, declaredEnd: mdat.end) { return layout }
      // Samples that run past the end of the file: a crash while this was written
      // (the caller checks that no fragment follows).
      if fragment.runs.contains(where: { $0.dataRanges.contains { $0.upperBound > file.fileSize } }) { torn = true }
      return nil
    } loss: { $0.lostTracks.count * 2 + ($0.repair == nil ? 0 : 1) }
    guard let (parsed, kept) = read else { return torn ? .torn : .notAFragment }
    fragmentsRead += 1
    for run in parsed.runs {
      usual.tfhd[run.track] = run.tfhdFlags
      usual.trun[run.track, default: []].insert(run.trunFlags)
    }
    usual.trackOrder = parsed.runs.map(\.track)
    var fragment = kept
    fragment.sequence = parsed.sequence
    for field in parsed.repairedFields { repairs.append("fragment \(fragmentsRead): \(field) did not fit its box; read again") }
    if let repair = kept.repair { repairs.append("fragment \(fragmentsRead): \(repair)") }
    if checksKeyframes { markKeyframes(&fragment) }
    return .kept(fragment)
  }

  /// Where the `moof` at `offset` ends (its `mdat` header starts), or nil when no
  /// `moof` starts there.
  private func moofEnd(at offset: Int64) throws(MP4FormatError) -> Int64? {
    guard try startsFragment(at: offset), let header = try file.boxHeader(at: offset) else { return nil }
    if header.type == "moof", header.size >= 24, header.size <= Self.maximumMoofSize,
      header.end + 8 <= file.fileSize, try file.boxHeader(at: header.end)?.type == "mdat"
    {
      return header.end
    }
    // The header was hit (or the `mdat`'s type): the `moof` ends where its boxes do,
    // or, when one of theirs was hit too, where the `mdat` header is.
    var position = offset + 8
    while position < min(file.fileSize, offset + Self.maximumMoofSize) {
      guard let child = try file.boxHeader(at: position) else { break }
      if child.type == "mdat" { return position }
      guard child.type == "mfhd" || child.type == "traf", child.size <= Self.maximumMoofSize else { break }
      position = child.end
      if header.type == "moof" && position == header.end && header.size <= Self.maximumMoofSize { return position }
    }
    let window = try file.read(at: offset + 8, count: 1 << 16)
    let mdat = Array("mdat".utf8)
    if window.count >= 8 {
      for i in 4...(window.count - 4) where window[i] == mdat[0] && window[i + 1] == mdat[1] && window[i + 2] == mdat[2] && window[i + 3] == mdat[3] {
        return offset + 8 + Int64(i) - 4
      }
    }
    return nil
  }

  /// True when a `moof` looks to start at `offset`: its type, or its first box's (`mfhd`).
  func startsFragment(at offset: Int64) throws(MP4FormatError) -> Bool {
    let bytes = try file.read(at: offset, count: 16)
    guard bytes.count >= 8 else { return false }
    if FourCC(rawValue: UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])) == "moof" {
      return true
    }
    guard bytes.count == 16 else { return false }
    return FourCC(rawValue: UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15]))
      == "mfhd"
  }

  /// True when a box that could end a fragment starts at `offset` (another fragment,
  /// an index from an interrupted finish), or the file ends there.
  private func fragmentMayEnd(at offset: Int64) throws(MP4FormatError) -> Bool {
    if offset == file.fileSize { return true }
    guard offset < file.fileSize else { return false }
    if try startsFragment(at: offset) { return true }
    guard let header = try file.boxHeader(at: offset) else { return false }
    return header.type == "moov" || header.type == "free"
  }

  /// The fragment with its samples where they lie and the end of its `mdat`, or nil
  /// when its samples cannot be placed.
  private func layout(
    of parsed: MovieFragment, at moofOffset: Int64, payload: Int64, declaredEnd: Int64
  ) -> FragmentedMovieScan.KeptFragment? {
    func kept(_ runs: [MovieFragment.Run], end: Int64, repair: String? = nil) -> FragmentedMovieScan.KeptFragment {
      var fragment = FragmentedMovieScan.KeptFragment(range: moofOffset..<end, runs: runs)
      fragment.repair = repair
      return fragment
    }
    func tiles(_ ranges: [Range<Int64>]) -> Int64? {
      var end = payload
      for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
        guard range.lowerBound == end else { return nil }
        end = range.upperBound
      }
      return end
    }
    let ranges = parsed.runs.flatMap(\.dataRanges)
    // As stated: the samples fill the `mdat`; or they end where a fragment may
    // follow, and it was the `mdat`'s size that was hit.
    if let end = tiles(ranges) {
      if end == declaredEnd && end <= file.fileSize { return kept(parsed.runs, end: end) }
      if end <= file.fileSize, (try? fragmentMayEnd(at: end)) == true, (try? fragmentMayEnd(at: declaredEnd)) != true {
        return kept(parsed.runs, end: end, repair: "its 'mdat' size disagreed with its samples; ends where they do")
      }
    }
    guard declaredEnd <= file.fileSize, (try? fragmentMayEnd(at: declaredEnd)) == true else { return nil }
    // Data offsets: each track's samples follow the previous track's.
    var runs = parsed.runs
    var at = payload
    for i in runs.indices {
      // Each chunk moved to where the data before it ends, its length unchanged.
      let lengths = runs[i].dataRanges.map(\.count)
      runs[i].chunks = zip(runs[i].chunks, lengths).map { chunk, length in
        defer { at += Int64(length) }
        return (at, chunk.samples)
      }
    }
    if at == declaredEnd { return kept(runs, end: declaredEnd, repair: "its data offsets did not fit its 'mdat'; re-derived") }
    // Sizes: each track's region runs from its stated start to the next track's (or
    // the `mdat`'s end); a track whose sizes do not fill it gets them from its NAL
    // units, or is left out.
    runs = parsed.runs
    let starts = runs.map { $0.chunks.first?.offset ?? payload }
    guard starts.first == payload, zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }),
      (starts.last ?? payload) <= declaredEnd
    else { return nil }
    var lost: [UInt32] = []
    var notes: [String] = []
    for i in runs.indices {
      let region = starts[i]..<(i + 1 < starts.count ? starts[i + 1] : declaredEnd)
      let total = runs[i].sizes.reduce(Int64(0)) { $0 + Int64($1) }
      guard total != Int64(region.count) else { continue }
      let framing = framing[runs[i].track] ?? .opaque
      if let sizes = framing.pictureSizes(in: region, in: file), sizes.count == runs[i].count {
        runs[i].sizes = sizes
        runs[i].chunks = [(region.lowerBound, UInt32(sizes.count))]
        notes.append("track \(runs[i].track)'s sample sizes did not fill its data; found again from its NAL units")
      } else if soundTracks.contains(runs[i].track), let sizes = soundSizes(runs[i].sizes, in: region) {
        runs[i].sizes = sizes
        runs[i].chunks = [(region.lowerBound, UInt32(sizes.count))]
        notes.append("track \(runs[i].track)'s sample sizes did not fill its data; found again from the sound frames' first bytes")
      } else {
        lost.append(runs[i].track)
      }
    }
    guard lost.count < runs.count else { return nil }
    var fragment = kept(
      runs.filter { !lost.contains($0.track) }, end: declaredEnd,
      repair: notes.isEmpty ? nil : notes.joined(separator: "; "))
    fragment.lostTracks = lost
    return fragment
  }

  /// Sound sample sizes of which one was damaged, set right by the frames themselves:
  /// of the corrections that make the sizes fill `region`, the one after which every
  /// frame starts like the others (the first byte's top seven bits: AAC's first
  /// element and its tag, Opus's configuration); nil when no one correction does.
  private func soundSizes(_ sizes: [UInt32], in region: Range<Int64>) -> [UInt32]? {
    let delta = sizes.reduce(Int64(0)) { $0 + Int64($1) } - Int64(region.count)
    guard delta != 0, sizes.count >= 4, region.count <= 16 << 20, let bytes = try? file.read(at: region.lowerBound, count: region.count),
      bytes.count == region.count
    else { return nil }
    /// How many frames start with the most common first byte.
    func agreeing(_ candidate: [UInt32]) -> Int {
      var counts: [UInt8: Int] = [:]
      var at = 0
      for size in candidate {
        guard at < bytes.count else { break }
        counts[bytes[at] & 0xFE, default: 0] += 1
        at += Int(size)
      }
      return counts.values.max() ?? 0
    }
    var best: [UInt32]? = nil
    var bestScore = -1
    var tie = false
    for i in sizes.indices {
      let corrected = Int64(sizes[i]) - delta
      guard corrected > 0, corrected <= Int64(UInt32.max) else { continue }
      var candidate = sizes
      candidate[i] = UInt32(corrected)
      let score = agreeing(candidate)
      if score > bestScore {
        (best, bestScore, tie) = (candidate, score, false)
      } else if score == bestScore {
        tie = true
      }
    }
    // All but the first frame (an encoder's first frame may start otherwise).
    guard !tie, bestScore >= sizes.count - 1 else { return nil }
    return best
  }

  /// Sets each H.264/HEVC sample's sync flag from its NAL units (a damaged flag would
  /// make a frame that needs others a keyframe, or hide a keyframe from seeking): an
  /// IDR/IRAP picture is one, a P or B picture is not, other intra pictures keep their
  /// flag (an encoder may mark a recovery point). Every sound sample is one.
  private func markKeyframes(_ fragment: inout FragmentedMovieScan.KeptFragment) {
    for i in fragment.runs.indices {
      if soundTracks.contains(fragment.runs[i].track) {
        for j in fragment.runs[i].sampleFlags.indices { fragment.runs[i].sampleFlags[j] &= ~0x1_0000 }
        continue
      }
      guard let framing = framing[fragment.runs[i].track], framing.checksMedia else { continue }
      for (j, range) in fragment.runs[i].sampleRanges.enumerated() {
        switch framing.picture(sampleAt: range, in: file) {
        case .keyframe: fragment.runs[i].sampleFlags[j] &= ~0x1_0000
        case .predicted: fragment.runs[i].sampleFlags[j] |= 0x1_0000
        case .undecided, nil: break
        }
      }
    }
  }

  /// Where the next fragment that can be read starts after `position`.
  func nextFragmentStart(after position: Int64) throws(MP4FormatError) -> Int64? {
    let moof = Array("moof".utf8)
    let mfhd = Array("mfhd".utf8)
    var at = position + 1
    let window = 1 << 20
    while at + 8 <= file.fileSize {
      let bytes = try file.read(at: at, count: window + 16)
      guard bytes.count >= 16 else { break }
      for i in 0...(bytes.count - 16) {
        let isMoof = bytes[i + 4] == moof[0] && bytes[i + 5] == moof[1] && bytes[i + 6] == moof[2] && bytes[i + 7] == moof[3]
        let isMfhd = bytes[i + 12] == mfhd[0] && bytes[i + 13] == mfhd[1] && bytes[i + 14] == mfhd[2] && bytes[i + 15] == mfhd[3]
        guard isMoof || isMfhd else { continue }
        var probe = self
        if case .kept = try probe.fragment(at: at + Int64(i)) { return at + Int64(i) }
      }
      at += Int64(bytes.count - 15)
    }
    return nil
  }

  /// True when the bytes from `offset` to the end are a fragment (or box) cut off by
  /// the end of the file, not whole boxes that did not parse.
  func isTorn(from offset: Int64) -> Bool {
    var position = offset
    while position < file.fileSize {
      guard let header = try? file.boxHeader(at: position) else { return true }
      if header.end > file.fileSize { return true }
      position = header.end
    }
    // Whole boxes to the end: damage.
    return false
  }
}
