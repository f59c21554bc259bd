/// Builds the `moov` of a regular (non-fragmented) MP4 from the initial `moov` that
/// libavformat wrote for a fragmented file and the samples its fragments hold.
///
/// The initial `moov` keeps everything that describes the codecs (`stsd`, `hdlr`,
/// `tkhd`, ...); the builder drops its `mvex`, fills each track's sample tables
/// (`stts`, `ctts`, `stss`, `stsc`, `stsz`, `stco`/`co64`) and durations, and adds the
/// edit list that the fragments cannot carry (an encoder's delay, from the marker).
struct MovieIndexBuilder {
  let initialMovie: [UInt8]
  let tracks: [UInt32: FragmentedMovieScan.TrackSamples]
  let marker: FragmentedMovieMarker

  /// The new `moov` box, and the duration of the movie in seconds.
  func build() throws(MP4FormatError) -> (moov: [UInt8], seconds: Double) {
    let children = try mp4Children(of: initialMovie, payloadStart: 8)
    guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw MP4FormatError("the index has no 'mvhd'") }
    let movieTimescale = try Self.timescale(ofHeader: Array(initialMovie[mvhd.range]), timescaleField: 2)
    var movieDuration: UInt64 = 0
    var traks: [[UInt8]] = []
    for child in children where child.type == "trak" {
      let (trak, duration) = try buildTrack(Array(initialMovie[child.range]), movieTimescale: movieTimescale)
      traks.append(trak)
      movieDuration = max(movieDuration, duration)
    }
    let mvhdBytes = try Self.withDuration(Array(initialMovie[mvhd.range]), movieDuration, timescaleField: 2)
    var w = MP4ByteWriter()
    w.box("moov") { w in
      var trakIndex = 0
      for child in children {
        switch child.type {
        case "mvhd": w.append(mvhdBytes)
        case "trak":
          w.append(traks[trakIndex])
          trakIndex += 1
        case "mvex": break
        default: w.append(Array(initialMovie[child.range]))
        }
      }
    }
    return (w.bytes, Double(movieDuration) / Double(max(movieTimescale, 1)))
  }

  /// One `trak` with full sample tables; also its duration in the movie's timescale.
  private func buildTrack(_ trak: [UInt8], movieTimescale: UInt32) throws(MP4FormatError) -> ([UInt8], UInt64) {
    let children = try mp4Children(of: trak, payloadStart: 8)
    guard let tkhd = children.first(where: { $0.type == "tkhd" }),
      let mdia = children.first(where: { $0.type == "mdia" })
    else { throw MP4FormatError("a 'trak' without 'tkhd' or 'mdia'") }
    let trackID = try Self.trackID(Array(trak[tkhd.range]))
    let samples = tracks[trackID] ?? FragmentedMovieScan.TrackSamples()
    let mdiaBytes = Array(trak[mdia.range])
    let mdiaChildren = try mp4Children(of: mdiaBytes, payloadStart: 8)
    guard let mdhd = mdiaChildren.first(where: { $0.type == "mdhd" }) else { throw MP4FormatError("'mdia' without 'mdhd'") }
    let mediaTimescale = try Self.timescale(ofHeader: Array(mdiaBytes[mdhd.range]), timescaleField: 2)
    let mediaDuration = samples.mediaDuration

    // Times far beyond any recording are a corrupt file, not arithmetic to trap on.
    let limit: Int64 = 1 << 52
    guard let firstFragmentTime = Int64(exactly: samples.firstFragmentDecodeTime ?? 0), firstFragmentTime < limit,
      abs(marker.firstDecodeTimes[trackID] ?? 0) < limit, mediaDuration < UInt64(limit),
      movieTimescale > 0, mediaTimescale > 0
    else { throw MP4FormatError("track \(trackID) has impossible times") }
    // Presentation starts at the earliest composition time and ends a frame after the
    // latest (with B-frames, beyond the last decode time by the reordering delay). The
    // frame is the last one's in decode order: a frame's decode duration reaches to the
    // next frame decoded, which with B-frames across a gap (a camera that was away) is
    // not the next one shown.
    var decodeTime: Int64 = 0
    var latestComposition: Int64 = 0
    var presentationStart: Int64 = samples.durations.isEmpty ? 0 : .max
    for i in samples.durations.indices {
      let composition = decodeTime + Int64(samples.compositionOffsets[i])
      presentationStart = min(presentationStart, composition)
      latestComposition = max(latestComposition, composition)
      decodeTime += Int64(samples.durations[i])
    }
    let presentationEnd = samples.durations.isEmpty ? 0 : latestComposition + Int64(samples.durations.last ?? 0)
    presentationStart = max(0, presentationStart)
    // The fragments' decode times start at 0 with the first packet, whose decode time
    // in the stream was `firstDecodeTimes` (negative by an encoder's delay): a sample
    // is presented at its composition time on that timeline plus `firstDecodeTimes`.
    // The new index's media time starts at the first kept fragment's decode time, so
    // its composition times are shifted by that. The edit starts the media at its
    // earliest composition time (players that move a track's first picture to zero,
    // as libavformat does, then agree with those that follow the edit), after an
    // empty edit when the first kept fragment is not the first (one was damaged): the
    // file keeps its timeline. Else it skips the encoder's delay (AAC's priming).
    let lead = presentationStart + firstFragmentTime + (marker.firstDecodeTimes[trackID] ?? 0)
    let emptyLeadInMedia = max(0, lead)
    let mediaStart = lead >= 0 ? presentationStart : presentationStart - lead
    let presented = UInt64(max(0, presentationEnd - mediaStart))
    let toMovie = { (t: UInt64) -> UInt64 in
      // In 128 bits: a day at 90 kHz times a 1 kHz movie timescale is well within 64,
      // but a corrupt duration need not be.
      let (high, low) = t.multipliedFullWidth(by: UInt64(movieTimescale))
      let (sum, carry) = low.addingReportingOverflow(UInt64(mediaTimescale) / 2)
      let dividend = (high: high + (carry ? 1 : 0), low: sum)
      guard dividend.high < UInt64(mediaTimescale) else { return UInt64.max }
      return UInt64(mediaTimescale).dividingFullWidth(dividend).quotient
    }
    let emptyLead = toMovie(UInt64(emptyLeadInMedia))
    let trackDuration = emptyLead + toMovie(presented)

    let media = try buildMedia(mdiaBytes, mdiaChildren, samples: samples, mediaDuration: mediaDuration)
    let tkhdBytes = try Self.withDuration(Array(trak[tkhd.range]), trackDuration, timescaleField: nil)
    var w = MP4ByteWriter()
    w.box("trak") { w in
      for child in children {
        switch child.type {
        case "tkhd":
          w.append(tkhdBytes)
          if (emptyLead > 0 || mediaStart != 0) && !samples.durations.isEmpty {
            w.box("edts") { w in
              w.fullBox("elst", version: 1) { w in
                w.u32(emptyLead > 0 ? 2 : 1)
                if emptyLead > 0 {
                  w.u64(emptyLead)
                  w.i64(-1)
                  w.u32(0x0001_0000)
                }
                w.u64(toMovie(presented))
                w.i64(mediaStart)
                w.u32(0x0001_0000)
              }
            }
          }
        case "edts": break
        case "mdia": w.append(media)
        default: w.append(Array(trak[child.range]))
        }
      }
    }
    return (w.bytes, trackDuration)
  }

  private func buildMedia(
    _ mdia: [UInt8], _ children: [(type: FourCC, range: Range<Int>)], samples: FragmentedMovieScan.TrackSamples,
    mediaDuration: UInt64
  ) throws(MP4FormatError) -> [UInt8] {
    var parts: [[UInt8]] = []
    for child in children {
      switch child.type {
      case "mdhd": parts.append(try Self.withDuration(Array(mdia[child.range]), mediaDuration, timescaleField: 2))
      case "minf": parts.append(try rebuild(Array(mdia[child.range]), samples: samples))
      default: parts.append(Array(mdia[child.range]))
      }
    }
    var w = MP4ByteWriter()
    w.box("mdia") { w in for part in parts { w.append(part) } }
    return w.bytes
  }

  /// `minf` with its `stbl` rebuilt.
  private func rebuild(_ minf: [UInt8], samples: FragmentedMovieScan.TrackSamples) throws(MP4FormatError) -> [UInt8] {
    var parts: [[UInt8]] = []
    for child in try mp4Children(of: minf, payloadStart: 8) {
      parts.append(child.type == "stbl" ? try sampleTable(Array(minf[child.range]), samples: samples) : Array(minf[child.range]))
    }
    var w = MP4ByteWriter()
    w.box("minf") { w in for part in parts { w.append(part) } }
    return w.bytes
  }

  private static let sampleTableBoxes: Set<FourCC> = ["stts", "ctts", "stss", "stsc", "stsz", "stz2", "stco", "co64"]

  private func sampleTable(_ stbl: [UInt8], samples s: FragmentedMovieScan.TrackSamples) throws(MP4FormatError) -> [UInt8] {
    let children = try mp4Children(of: stbl, payloadStart: 8)
    var w = MP4ByteWriter()
    w.box("stbl") { w in
      for child in children where !Self.sampleTableBoxes.contains(child.type) { w.append(Array(stbl[child.range])) }
      // stts: runs of equal durations.
      w.fullBox("stts", version: 0) { w in
        let runs = Self.runs(s.durations)
        w.u32(UInt32(runs.count))
        for run in runs {
          w.u32(run.count)
          w.u32(run.value)
        }
      }
      if s.compositionOffsets.contains(where: { $0 != 0 }) {
        let negative = s.compositionOffsets.contains { $0 < 0 }
        w.fullBox("ctts", version: negative ? 1 : 0) { w in
          let runs = Self.runs(s.compositionOffsets)
          w.u32(UInt32(runs.count))
          for run in runs {
            w.u32(run.count)
            w.i32(run.value)
          }
        }
      }
      if s.syncSamples.count != s.durations.count {
        w.fullBox("stss", version: 0) { w in
          w.u32(UInt32(s.syncSamples.count))
          for n in s.syncSamples { w.u32(n) }
        }
      }
      w.fullBox("stsc", version: 0) { w in
        var entries: [(first: UInt32, count: UInt32)] = []
        for (i, chunk) in s.chunks.enumerated() where entries.last?.count != chunk.samples {
          entries.append((UInt32(i + 1), chunk.samples))
        }
        w.u32(UInt32(entries.count))
        for e in entries {
          w.u32(e.first)
          w.u32(e.count)
          w.u32(1)
        }
      }
      w.fullBox("stsz", version: 0) { w in
        if let first = s.sizes.first, s.sizes.allSatisfy({ $0 == first }) {
          w.u32(first)
          w.u32(UInt32(s.sizes.count))
        } else {
          w.u32(0)
          w.u32(UInt32(s.sizes.count))
          for size in s.sizes { w.u32(size) }
        }
      }
      let wide = s.chunks.contains { $0.offset > Int64(UInt32.max) }
      w.fullBox(wide ? "co64" : "stco", version: 0) { w in
        w.u32(UInt32(s.chunks.count))
        for chunk in s.chunks {
          if wide { w.u64(UInt64(chunk.offset)) } else { w.u32(UInt32(chunk.offset)) }
        }
      }
    }
    return w.bytes
  }

  private static func runs<T: Equatable>(_ values: [T]) -> [(count: UInt32, value: T)] {
    var result: [(count: UInt32, value: T)] = []
    for v in values {
      if let last = result.last, last.value == v {
        result[result.count - 1].count += 1
      } else {
        result.append((1, v))
      }
    }
    return result
  }

  // MARK: mvhd / tkhd / mdhd

  /// The timescale of an `mvhd` or `mdhd` (field 2 after creation and modification).
  static func timescale(ofHeader box: [UInt8], timescaleField: Int) throws(MP4FormatError) -> UInt32 {
    var r = MP4ByteReader(box, at: 8)
    let (version, _) = try r.versionAndFlags()
    try r.skip(version == 1 ? 16 : 8)
    return try r.u32()
  }

  static func trackID(_ tkhd: [UInt8]) throws(MP4FormatError) -> UInt32 {
    var r = MP4ByteReader(tkhd, at: 8)
    let (version, _) = try r.versionAndFlags()
    try r.skip(version == 1 ? 16 : 8)
    return try r.u32()
  }

  /// An `mvhd`, `mdhd` (timescale before the duration) or `tkhd` (track ID and a
  /// reserved word before it) with its duration set, as version 1 when it needs 64 bits.
  static func withDuration(_ box: [UInt8], _ duration: UInt64, timescaleField: Int?) throws(MP4FormatError) -> [UInt8] {
    let middle = timescaleField == nil ? 8 : 4
    guard box.count >= 12, box.count >= (box[8] == 1 ? 12 + 16 + middle + 8 : 12 + 8 + middle + 4) else {
      throw MP4FormatError("a header box is too short")
    }
    let version = box[8]
    // Layout after version/flags: creation, modification, then a 4-byte timescale
    // (mvhd, mdhd) or track ID + reserved (tkhd), then the duration.
    if version == 1 {
      var out = box
      let at = 12 + 16 + middle
      for i in 0..<8 { out[at + i] = UInt8((duration >> UInt64(56 - 8 * i)) & 0xFF) }
      return out
    }
    if duration <= UInt64(UInt32.max) {
      var out = box
      let at = 12 + 8 + middle
      for i in 0..<4 { out[at + i] = UInt8((duration >> UInt64(24 - 8 * i)) & 0xFF) }
      return out
    }
    // Version 0 → 1: creation and modification times and the duration widen to 64 bits.
    var w = MP4ByteWriter()
    w.u32(0)
    w.append(Array(box[4..<8]))
    w.u8(1)
    w.append(Array(box[9..<12]))
    var r = MP4ByteReader(box, at: 12)
    let creation = (try? r.u32()) ?? 0
    let modification = (try? r.u32()) ?? 0
    w.u64(UInt64(creation))
    w.u64(UInt64(modification))
    w.append(Array(box[20..<(20 + middle)]))
    w.u64(duration)
    w.append(Array(box[(24 + middle)...]))
    MP4ByteWriter.patchSize(&w.bytes, at: 0, size: w.bytes.count)
    return w.bytes
  }
}
