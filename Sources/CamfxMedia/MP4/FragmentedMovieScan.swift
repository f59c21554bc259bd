/// What a fragmented MP4 written by camfx holds, read back from the file: its boxes
/// before the fragments, every complete fragment's samples, and where a torn last
/// fragment (a crash while writing it) begins.
///
///     ftyp | marker | moov | moof mdat | moof mdat | ... | moof md…  (torn)
///                                                        ^ completeEnd
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

  var kind: Kind
  var markerOffset: Int64
  var markerBox: [UInt8]
  var marker: FragmentedMovieMarker
  var moovOffset: Int64
  /// The `moov` written with the header (codec descriptions, no samples).
  var initialMovie: [UInt8]
  var tracks: [UInt32: TrackSamples] = [:]
  var fragments = 0
  /// The end of the last complete fragment.
  var completeEnd: Int64
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
        completeEnd = file.fileSize
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
    completeEnd = moov.end

    // Fragments: moof then mdat, until the file ends or one is incomplete.
    var position = moov.end
    while let header = try file.boxHeader(at: position), header.end <= file.fileSize {
      if header.type == "moof" {
        guard let mdat = try file.boxHeader(at: header.end), mdat.type == "mdat", mdat.end <= file.fileSize else { break }
        guard let moof = try? file.readBox(header),
          let added = try? Self.parseFragment(moof, at: header.offset, defaults: defaults, mdat: mdat)
        else { break }
        for (track, samples) in added { Self.append(samples, to: &tracks[track, default: TrackSamples()]) }
        fragments += 1
        position = mdat.end
        completeEnd = position
      } else if header.type == "free" || header.type == "skip" {
        position = header.end
      } else {
        break  // e.g. a final index from a finish that was interrupted: written again
      }
    }
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

  /// The samples of one `moof`, whose data must lie inside `mdat`.
  private static func parseFragment(
    _ moof: [UInt8], at moofOffset: Int64, defaults: [UInt32: TrackDefaults], mdat: MP4FileReader.BoxHeader
  ) throws(MP4FormatError) -> [UInt32: TrackSamples] {
    var result: [UInt32: TrackSamples] = [:]
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
        if count > 0 { samples.chunks.append((start, count)) }
      }
      previousDataEnd = dataPosition
      result[track] = samples
    }
    return result
  }
}
