/// One fragment of a fragmented MP4 as its `moof` describes it: per track fragment
/// (`traf`), the decode time it states (`tfdt`), its samples (`trun`) and where their
/// bytes lie in the `mdat` that follows.
///
/// Every box is read strictly: its fields must fill it exactly, as its version and
/// flags say. A flipped flag bit then shows as a box whose fields do not fit, instead
/// of as fields read from the next box (which once gave the first fragment's frames
/// one-second durations), and `parse` tries the flags the same box has in the
/// neighbouring fragments, then each single-bit change of the defined flags.
struct MovieFragment {
  /// The samples of one track in this fragment.
  struct Run {
    var track: UInt32
    /// Where its samples start on the track's decode timeline: the `tfdt` as read,
    /// then as `FragmentTimeline` re-derived it where it was damaged.
    var decodeTime: UInt64?
    var durations: [UInt32] = []
    var sizes: [UInt32] = []
    var sampleFlags: [UInt32] = []
    var compositionOffsets: [Int32] = []
    /// True when no `trun` listed durations: they all come from one default (`tfhd`
    /// or `trex`), so one damaged default changes every one of them.
    var durationsFromDefault = true
    /// Where each `trun`'s samples start, and how many it holds.
    var chunks: [(offset: Int64, samples: UInt32)] = []
    /// The flags of its `tfhd` and `trun`s as read (for the next fragment's parse).
    var tfhdFlags: UInt32 = 0
    var trunFlags: UInt32 = 0

    var count: Int { sizes.count }
    var totalDuration: UInt64 { durations.reduce(0) { $0 + UInt64($1) } }
    /// The byte range each sample takes, in order.
    var sampleRanges: [Range<Int64>] {
      var result: [Range<Int64>] = []
      var index = 0
      for chunk in chunks {
        var at = chunk.offset
        for _ in 0..<chunk.samples {
          result.append(at..<(at + Int64(sizes[index])))
          at += Int64(sizes[index])
          index += 1
        }
      }
      return result
    }
    /// The bytes of each chunk.
    var dataRanges: [Range<Int64>] {
      var result: [Range<Int64>] = []
      var first = 0
      let samples = sampleRanges
      for chunk in chunks where chunk.samples > 0 {
        let last = first + Int(chunk.samples) - 1
        result.append(samples[first].lowerBound..<samples[last].upperBound)
        first = last + 1
      }
      return result
    }
  }

  /// `trex` defaults of one track.
  struct TrackDefaults {
    var duration: UInt32 = 0
    var size: UInt32 = 0
    var flags: UInt32 = 0
  }

  /// The flags a box had in another fragment, to try where this one's do not fit.
  struct UsualFlags {
    var tfhd: [UInt32: UInt32] = [:]
    var trun: [UInt32: Set<UInt32>] = [:]
    /// The tracks of the last fragment read, in its order (a damaged track ID is the
    /// one its place had there).
    var trackOrder: [UInt32] = []
  }

  var runs: [Run]
  /// The `mfhd` sequence number.
  var sequence: UInt32?
  /// Fields that did not fit their box and were read another way.
  var repairedFields: [String] = []

  private struct FlagsDoNotFit: Error {
    var boxOffset: Int
    var type: FourCC
    var flags: UInt32
  }

  /// The bits of each box's flags that say which fields follow.
  private static let tfhdFieldBits: [UInt32] = [0x1, 0x2, 0x8, 0x10, 0x20, 0x2_0000]
  private static let trunFieldBits: [UInt32] = [0x1, 0x4, 0x100, 0x200, 0x400, 0x800]

  /// A change to try where a box's fields do not fit it.
  private struct Patch {
    var boxOffset: Int
    /// Flags to read the box with instead of its own.
    var flags: UInt32?
    /// Take a `trun`'s sample count from its box size instead of its count field.
    var countFromSize = false
  }

  /// Reads the `moof` held in `moof` (the whole box, found at `moofOffset`).
  /// - Parameter accept: whether a reading is right (its samples tile their `mdat`);
  ///   a reading with other flags is tried only where the box's own do not fit.
  /// - Returns: nil when its boxes do not parse with any flags tried, or no reading is accepted.
  /// - Parameter loss: how much an accepted reading leaves out or had to repair; of the
  ///   readings with other flags, the one with the least is taken (a reading whose
  ///   samples fill the `mdat` as stated over one that needs its sizes found again).
  static func parse<Accepted>(
    _ moof: [UInt8], at moofOffset: Int64, defaults: [UInt32: TrackDefaults], usual: UsualFlags,
    accept: (MovieFragment) -> Accepted?, loss: (Accepted) -> Int
  ) -> (MovieFragment, Accepted)? {
    do {
      let fragment = try read(moof, at: moofOffset, defaults: defaults, trackOrder: usual.trackOrder, patch: nil)
      return accept(fragment).map { (fragment, $0) }
    } catch let misfit as FlagsDoNotFit {
      // One box's fields were damaged: a sample count that disagrees with its box's
      // size, or flags: the same box's flags in other fragments first, then every
      // single-bit change of the bits that add or remove fields.
      let isTfhd = misfit.type == "tfhd"
      var patches: [Patch] = isTfhd ? [] : [Patch(boxOffset: misfit.boxOffset, countFromSize: true)]
      var flags: [UInt32] = []
      let track = trackOfBox(moof, boxOffset: misfit.boxOffset)
      if isTfhd {
        if let track, let usualFlags = usual.tfhd[track] { flags.append(usualFlags) }
      } else if let track {
        flags += (usual.trun[track] ?? []).sorted()
      }
      for bit in isTfhd ? tfhdFieldBits : trunFieldBits { flags.append(misfit.flags ^ bit) }
      var tried: Set<UInt32> = [misfit.flags]
      for f in flags where tried.insert(f).inserted { patches.append(Patch(boxOffset: misfit.boxOffset, flags: f)) }
      // Of the readings that fit, the one that leaves out least; then the one whose
      // flags are nearest those the other fragments had; then the one whose sample
      // flags look like sample flags (their low 16 bits, the degradation priority,
      // are 0 in what camfx writes: offsets or durations read as flags are not).
      var best: (MovieFragment, Accepted, [Int])? = nil
      let usualFlags = isTfhd ? (track.flatMap { usual.tfhd[$0] }.map { [$0] } ?? []) : Array(track.flatMap { usual.trun[$0] } ?? [])
      for patch in patches {
        if var fragment = try? read(moof, at: moofOffset, defaults: defaults, trackOrder: usual.trackOrder, patch: patch), let accepted = accept(fragment) {
          fragment.repairedFields.append(patch.countFromSize ? "its 'trun' sample count" : "its '\(misfit.type)' flags")
          let distance = patch.flags.map { f in usualFlags.map { ($0 ^ f).nonzeroBitCount }.min() ?? 0 } ?? 0
          let oddFlags = fragment.runs.reduce(0) { $0 + $1.sampleFlags.filter { $0 & 0xFFFF != 0 }.count }
          let cost = [loss(accepted), distance, oddFlags]
          if best.map({ cost.lexicographicallyPrecedes($0.2) }) ?? true { best = (fragment, accepted, cost) }
        }
      }
      return best.map { ($0.0, $0.1) }
    } catch {
      return nil
    }
  }

  /// The track of the `traf` that holds the box at `boxOffset` (its `tfhd`'s track ID).
  private static func trackOfBox(_ moof: [UInt8], boxOffset: Int) -> UInt32? {
    guard let trafs = try? mp4Children(of: moof, payloadStart: 8) else { return nil }
    for traf in trafs where traf.type == "traf" && traf.range.contains(boxOffset) {
      guard let children = try? mp4Children(of: moof, payloadStart: traf.range.lowerBound + 8, end: traf.range.upperBound),
        let tfhd = children.first(where: { $0.type == "tfhd" }), tfhd.range.count >= 16
      else { return nil }
      var r = MP4ByteReader(moof, at: tfhd.range.lowerBound + 12)
      return try? r.u32()
    }
    return nil
  }

  private static let maximumSamples: UInt32 = 1 << 20

  private static let knownTypes: Set<FourCC> = ["mfhd", "traf", "tfhd", "tfdt", "trun", "mdat"]

  private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32? {
    guard at >= 0, at + 4 <= bytes.count else { return nil }
    return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
  }

  /// The size the box at `offset` has by its own fields (camfx writes nothing else in
  /// them), or nil where they do not say.
  private static func sizeByFields(_ bytes: [UInt8], at offset: Int, type: FourCC, end: Int) -> Int? {
    guard let flagsWord = u32(bytes, offset + 8) else { return nil }
    let flags = flagsWord & 0xFF_FFFF
    switch type {
    case "mfhd": return 16
    case "tfdt": return flagsWord >> 24 == 1 ? 20 : 16
    case "tfhd":
      return 16 + (flags & 0x1 != 0 ? 8 : 0) + [0x2, 0x8, 0x10, 0x20].filter { flags & UInt32($0) != 0 }.count * 4
    case "trun":
      guard let count = u32(bytes, offset + 12), count < 1 << 20 else { return nil }
      let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
      return 16 + (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0) + Int(count) * fields * 4
    case "traf":
      // Its boxes, each at its own size, up to the next `traf` or the end.
      guard let children = try? children(of: bytes, from: offset + 8, end: end, stopAtTraf: true) else { return nil }
      return (children.boxes.last?.range.upperBound ?? offset + 8) - offset
    default: return nil
    }
  }

  /// The boxes from `start` to `end`, each at its declared size, or, where that size
  /// was damaged (it overruns, or disagrees with the box's fields and the box after
  /// it), at the size its fields give.
  private static func children(
    of bytes: [UInt8], from start: Int, end: Int, stopAtTraf: Bool = false
  ) throws -> (boxes: [(type: FourCC, range: Range<Int>)], repaired: Bool) {
    var boxes: [(type: FourCC, range: Range<Int>)] = []
    var repaired = false
    var position = start
    func boxFollows(_ at: Int) -> Bool {
      if at == end { return true }
      guard let size = u32(bytes, at), size >= 8, let type = u32(bytes, at + 4) else { return false }
      return knownTypes.contains(FourCC(rawValue: type))
    }
    while position + 8 <= end {
      guard let declared = u32(bytes, position).map(Int.init), let typeWord = u32(bytes, position + 4) else { break }
      let type = FourCC(rawValue: typeWord)
      if stopAtTraf && position > start && type == "traf" { break }
      let computed = sizeByFields(bytes, at: position, type: type, end: end)
      let declaredFits = declared >= 8 && position + declared <= end && boxFollows(position + declared)
      let computedFits = computed.map { $0 >= 8 && position + $0 <= end && boxFollows(position + $0) } ?? false
      let size: Int
      if declaredFits && (computed == nil || computed == declared || !computedFits) {
        size = declared
      } else if computedFits, let computed {
        size = computed
        repaired = true
      } else if declared >= 8 && position + declared <= end {
        size = declared
      } else {
        throw MP4FormatError("'\(type)' box at \(position) overruns its parent")
      }
      boxes.append((type, position..<(position + size)))
      position += size
      if stopAtTraf && boxes.count >= 3 { break }
    }
    return (boxes, repaired)
  }

  private static func read(
    _ moof: [UInt8], at moofOffset: Int64, defaults: [UInt32: TrackDefaults], trackOrder usualOrder: [UInt32],
    patch: Patch?
  ) throws -> MovieFragment {
    var fragment = MovieFragment(runs: [])
    var previousDataEnd = moofOffset
    var seenTracks: Set<UInt32> = []
    let (boxes, repaired) = try children(of: moof, from: 8, end: moof.count)
    if repaired { fragment.repairedFields.append("a box size in its 'moof'") }
    let trackOrder = usualOrder.isEmpty ? defaults.keys.sorted() : usualOrder
    var trafIndex = 0
    for child in boxes {
      // A box whose type was damaged is known by its place: camfx's `moof` holds an
      // `mfhd` first, then a `traf` per track, each starting with its `tfhd`.
      var type = child.type
      if type != "mfhd" && type != "traf" {
        if child.range.lowerBound == 8 && child.range.count == 16 {
          type = "mfhd"
        } else if child.range.count >= 24, Array(moof[(child.range.lowerBound + 12)..<(child.range.lowerBound + 16)]) == Array("tfhd".utf8) {
          type = "traf"
        }
      }
      switch type {
      case "mfhd":
        var r = box(moof, child.range)
        _ = try r.versionAndFlags()
        fragment.sequence = try r.u32()
        try end(r, child)
      case "traf":
        // A track ID that was damaged is known by the order of the tracks.
        let expected = trafIndex < trackOrder.count ? trackOrder[trafIndex] : nil
        trafIndex += 1
        let (run, trafRepaired) = try readTrackFragment(
          moof, child.range, moofOffset: moofOffset, previousDataEnd: previousDataEnd, defaults: defaults,
          patch: patch, expectedTrack: expected, seen: seenTracks)
        if trafRepaired { fragment.repairedFields.append("a box size or track ID in its 'traf'") }
        guard seenTracks.insert(run.track).inserted else { throw MP4FormatError("two 'traf' of one track") }
        previousDataEnd = run.dataRanges.last?.upperBound ?? previousDataEnd
        fragment.runs.append(run)
      default:
        throw MP4FormatError("'\(child.type)' in a 'moof'")
      }
    }
    guard !fragment.runs.isEmpty else { throw MP4FormatError("a 'moof' without 'traf'") }
    return fragment
  }

  private static func readTrackFragment(
    _ moof: [UInt8], _ range: Range<Int>, moofOffset: Int64, previousDataEnd: Int64, defaults: [UInt32: TrackDefaults],
    patch: Patch?, expectedTrack: UInt32?, seen: Set<UInt32>
  ) throws -> (Run, Bool) {
    let (children, childrenRepaired) = try Self.children(of: moof, from: range.lowerBound + 8, end: range.upperBound)
    var repaired = childrenRepaired
    // The first box is the `tfhd`, whatever its type says.
    guard let tfhd = children.first else { throw MP4FormatError("an empty 'traf'") }
    var r = box(moof, tfhd.range)
    var (_, tfhdFlags) = try r.versionAndFlags()
    if let patch, patch.boxOffset == tfhd.range.lowerBound, let flags = patch.flags { tfhdFlags = flags }
    var track = try r.u32()
    if defaults[track] == nil || seen.contains(track), let expectedTrack, !seen.contains(expectedTrack) {
      track = expectedTrack
      repaired = true
    }
    guard var d = defaults[track] else { throw MP4FormatError("fragment of unknown track \(track)") }
    var base = tfhdFlags & 0x2_0000 != 0 ? moofOffset : previousDataEnd
    do {
      if tfhdFlags & 0x1 != 0 {
        base = Int64(bitPattern: try r.u64())
        // An offset past any file is a damaged field, not arithmetic to trap on.
        guard base >= 0, base < 1 << 52 else { throw MP4FormatError("a 'tfhd' base offset past any file") }
      }
      if tfhdFlags & 0x2 != 0 { _ = try r.u32() }
      if tfhdFlags & 0x8 != 0 { d.duration = try r.u32() }
      if tfhdFlags & 0x10 != 0 { d.size = try r.u32() }
      if tfhdFlags & 0x20 != 0 { d.flags = try r.u32() }
      try end(r, tfhd)
    } catch {
      throw FlagsDoNotFit(boxOffset: tfhd.range.lowerBound, type: "tfhd", flags: tfhdFlags)
    }
    var run = Run(track: track)
    run.tfhdFlags = tfhdFlags
    var dataPosition = base
    for child in children.dropFirst() {
      var type = child.type
      if type != "tfdt" && type != "trun" {
        // Damaged: a `tfdt` has the size of one, and camfx writes nothing else there.
        type = (child.range.count == 20 || child.range.count == 16) && run.decodeTime == nil ? "tfdt" : "trun"
      }
      switch type {
      case "tfdt":
        var t = box(moof, child.range)
        // Its size says which version it is, whatever its version byte says.
        _ = try t.versionAndFlags()
        guard run.decodeTime == nil, t.remaining == 8 || t.remaining == 4 else {
          throw MP4FormatError("a damaged 'tfdt'")
        }
        run.decodeTime = t.remaining == 8 ? try t.u64() : UInt64(try t.u32())
      case "trun":
        var t = box(moof, child.range)
        var (_, flags) = try t.versionAndFlags()
        let patched = patch?.boxOffset == child.range.lowerBound ? patch : nil
        if let override = patched?.flags { flags = override }
        run.trunFlags = flags
        var count = try t.u32()
        let fields = trunFieldBits.dropFirst(2).filter { flags & $0 != 0 }.count
        let header = (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0)
        if patched?.countFromSize == true, fields > 0, (t.remaining - header) % (fields * 4) == 0 {
          count = UInt32((t.remaining - header) / (fields * 4))
        }
        // More samples than any fragment holds (a second of 240 fps, or of 8 kHz sound in
        // single samples, is far below) is a damaged count, not a loop to run.
        guard count <= Self.maximumSamples else { throw MP4FormatError("a 'trun' with \(count) samples") }
        guard Int64(t.remaining) == Int64(header) + Int64(count) * Int64(fields * 4) else {
          throw FlagsDoNotFit(boxOffset: child.range.lowerBound, type: "trun", flags: flags)
        }
        if flags & 0x1 != 0 { dataPosition = base + Int64(Int32(bitPattern: try t.u32())) }
        let firstFlags: UInt32? = flags & 0x4 != 0 ? try t.u32() : nil
        if flags & 0x100 != 0 { run.durationsFromDefault = false }
        let start = dataPosition
        for i in 0..<count {
          let duration = flags & 0x100 != 0 ? try t.u32() : d.duration
          let size = flags & 0x200 != 0 ? try t.u32() : d.size
          var sampleFlags = flags & 0x400 != 0 ? try t.u32() : d.flags
          if i == 0, let firstFlags { sampleFlags = firstFlags }
          // Some muxers write negative offsets in version 0 too: read the bits as signed.
          let offset = flags & 0x800 != 0 ? Int32(bitPattern: try t.u32()) : 0
          run.durations.append(duration)
          run.sizes.append(size)
          run.sampleFlags.append(sampleFlags)
          run.compositionOffsets.append(offset)
          dataPosition += Int64(size)
        }
        if count > 0 { run.chunks.append((start, count)) }
      default:
        break
      }
    }
    return (run, repaired)
  }

  /// A reader of one box's bytes alone, past its header.
  private static func box(_ bytes: [UInt8], _ range: Range<Int>) -> MP4ByteReader {
    MP4ByteReader(Array(bytes[range]), at: 8)
  }

  private static func end(_ reader: MP4ByteReader, _ child: (type: FourCC, range: Range<Int>)) throws {
    guard reader.remaining == 0 else { throw MP4FormatError("'\(child.type)' has bytes its fields do not use") }
  }
}
