/// The decode timeline of the fragments a repair keeps, per track, checked against
/// what it says twice: a fragment starts where the one before it ends (camfx's video
/// has no gaps between fragments: a frame before a gap lasts until the next), and it
/// ends where the next one starts.
///
/// A `tfdt` that agrees with neither neighbour was damaged and is re-derived from the
/// previous fragment's end; durations that overrun the next fragment's start were
/// damaged and are re-derived from it (or, in the last fragment, from the durations
/// before it). A repair so never drops a fragment for its times, and never invents
/// time: the 13-hour file a flipped high bit of a `tfdt` once made.
struct FragmentTimeline {
  var fragments: [FragmentedMovieScan.KeptFragment]
  let tracks: [UInt32]
  let timescales: [UInt32: UInt32]
  /// Each track's encoder delay in its ticks (the marker's first decode time, negated):
  /// its first picture is presented that long after the fragments' decode time 0, and
  /// its last no later than that long after its last decode time.
  let delays: [UInt32: Int64]
  /// What was re-derived, for the report.
  private(set) var repairs: [String] = []
  /// Samples whose times could not be known, left out: fragment, track, decode times.
  private(set) var lostSamples: [(fragment: Int, track: UInt32, from: UInt64, to: UInt64)] = []

  init(
    fragments: [FragmentedMovieScan.KeptFragment], tracks: [UInt32], timescales: [UInt32: UInt32],
    delays: [UInt32: Int64]
  ) {
    self.fragments = fragments
    self.tracks = tracks
    self.timescales = timescales
    self.delays = delays
  }

  mutating func repair() {
    for track in tracks {
      repairStarts(of: track)
      repairDurations(of: track)
      repairCompositionOffsets(of: track)
    }
  }

  /// The fragments that hold samples of `track`, in file order.
  private func indices(of track: UInt32) -> [Int] {
    fragments.indices.filter { fragments[$0].run(of: track) != nil }
  }

  /// True when nothing was left out between fragments `a` and `b` (a < b) on `track`.
  private func adjacent(_ a: Int, _ b: Int, track: UInt32) -> Bool {
    for k in (a + 1)...b where fragments[k].followsDamage { return false }
    for k in (a + 1)..<b where fragments[k].lostTracks.contains(track) { return false }
    return true
  }

  /// Track `track`'s samples in fragment `k` (empty where it has none; the callers ask
  /// only for fragments `indices(of:)` listed).
  private func run(_ k: Int, _ track: UInt32) -> MovieFragment.Run {
    fragments[k].run(of: track) ?? MovieFragment.Run(track: track)
  }

  /// A time as whole ticks, or nil where a damaged field makes it no time at all
  /// (not finite, or past what 63 bits hold).
  private static func ticks(_ value: Double) -> UInt64? {
    value.isFinite && value >= 0 && value < 0x1p62 ? UInt64(value.rounded()) : nil
  }

  /// `a + b`, or the largest time where a damaged field would make it overflow.
  private static func sum(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let (result, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : result
  }

  private mutating func setRun(_ k: Int, _ run: MovieFragment.Run) {
    guard let i = fragments[k].runs.firstIndex(where: { $0.track == run.track }) else { return }
    fragments[k].runs[i] = run
  }

  /// `ticks` of `track` as `hh:mm:ss.mmm`.
  private func clock(_ ticks: UInt64, _ track: UInt32) -> String {
    let scale = Double(max(timescales[track] ?? 1, 1))
    let ms = Int(min(Double(ticks) / scale * 1000, 1e15).rounded(.down))
    func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
    return "\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):\(pad(ms / 1000 % 60, 2)).\(pad(ms % 1000, 3))"
  }

  /// The start of another track's samples in fragment `k`, in `track`'s ticks.
  private func otherTrackStart(_ k: Int, than track: UInt32) -> UInt64? {
    for other in fragments[k].runs where other.track != track {
      guard let t = other.decodeTime, let from = timescales[other.track], let to = timescales[track], from > 0 else { continue }
      return Self.ticks(Double(t) / Double(from) * Double(to))
    }
    return nil
  }

  private mutating func repairStarts(of track: UInt32) {
    let idx = indices(of: track)
    var starts: [UInt64] = []
    let longest = idx.map { run($0, track).totalDuration }.max() ?? 0
    for (n, k) in idx.enumerated() {
      let current = run(k, track)
      let stated = current.decodeTime
      let total = current.totalDuration
      let prevEnd = n > 0 ? Self.sum(starts[n - 1], run(idx[n - 1], track).totalDuration) : nil
      let prevAdjacent = n > 0 && adjacent(idx[n - 1], k, track: track)
      let nextAdjacent = n + 1 < idx.count && adjacent(k, idx[n + 1], track: track)
      let nextStated = nextAdjacent ? run(idx[n + 1], track).decodeTime : nil
      let confirmedByNext = stated.map { stated in nextStated == Self.sum(stated, total) } ?? false
      let oneSecond = UInt64(timescales[track] ?? 1)
      let agreesWithOtherTrack: Bool = {
        guard let stated, let other = otherTrackStart(k, than: track) else { return false }
        return (stated > other ? stated - other : other - stated) <= oneSecond
      }()
      var chosen: UInt64
      if n == 0 && k == 0 && !fragments[0].followsDamage {
        // The first fragment starts the timeline at 0.
        chosen = stated == 0 || (confirmedByNext && agreesWithOtherTrack) ? (stated ?? 0) : 0
      } else if prevAdjacent, let prevEnd {
        // A start that differs from the previous end is right when the next fragment
        // confirms it (a gap, or the previous durations were damaged), or when the
        // previous durations, repaired as their neighbours have them, end there.
        let previousDamaged = stated.map { stated in
          stated >= starts[n - 1]
            && repairedDurations(of: run(idx[n - 1], track), toLast: stated - starts[n - 1], in: idx[n - 1]) != nil
        } ?? false
        if let stated, stated == prevEnd || confirmedByNext || previousDamaged {
          chosen = stated
        } else {
          chosen = prevEnd
        }
      } else {
        // After damage: the stated start, where something confirms it and it lies no
        // further than the damaged bytes could hold.
        let floor = prevEnd ?? 0
        let bytesBetween = fragments[k].range.lowerBound - (n > 0 ? fragments[idx[n - 1]].range.upperBound : 0)
        let keptBytes = idx.reduce(Int64(0)) { $0 + Int64(fragments[$1].range.count) }
        let keptTicks = idx.reduce(UInt64(0)) { Self.sum($0, run($1, track).totalDuration) }
        let expectedGap =
          keptBytes > 0 ? Self.ticks(Double(bytesBetween) / Double(keptBytes) * Double(keptTicks)) ?? longest : longest
        let reach = Self.sum(Self.sum(expectedGap, expectedGap), longest)
        if let stated, stated >= floor, confirmedByNext || agreesWithOtherTrack, stated - floor <= reach {
          chosen = stated
        } else if let nextStated, nextStated >= total, nextStated - total >= floor, nextStated - total - floor <= reach {
          chosen = nextStated - total
        } else if let stated, stated >= floor, stated - floor <= reach {
          chosen = stated
        } else {
          chosen = Self.sum(floor, expectedGap)
        }
      }
      if let stated, chosen != stated {
        repairs.append(
          "fragment \(k + 1): track \(track)'s decode time said \(clock(stated, track)); re-derived from its neighbours as \(clock(chosen, track))"
        )
      }
      starts.append(chosen)
      var fixed = current
      fixed.decodeTime = chosen
      setRun(k, fixed)
    }
  }

  /// The most common duration in `durations`.
  private static func mode(_ durations: [UInt32]) -> UInt32? {
    var counts: [UInt32: Int] = [:]
    for d in durations { counts[d, default: 0] += 1 }
    return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
  }

  /// The durations of `run` (in fragment `k`) repaired to add up to `expected`, the
  /// way its neighbours have them: their default for every sample, or one damaged
  /// sample set back to the usual duration; nil when neither adds up.
  private func repairedDurations(of run: MovieFragment.Run, toLast expected: UInt64, in k: Int) -> [UInt32]? {
    guard run.count > 0, run.totalDuration != expected else { return nil }
    if run.durationsFromDefault {
      let neighbours = [k - 1, k + 1].filter { fragments.indices.contains($0) }.compactMap { fragments[$0].run(of: run.track) }
      for other in neighbours where other.durationsFromDefault {
        if let d = other.durations.first, UInt64(d) * UInt64(run.count) == expected {
          return Array(repeating: d, count: run.count)
        }
      }
      return nil
    }
    let delta = Int64(run.totalDuration) - Int64(expected)
    for i in run.durations.indices {
      var others = run.durations
      others.remove(at: i)
      if let usual = Self.mode(others), Int64(run.durations[i]) - delta == Int64(usual) {
        var repaired = run.durations
        repaired[i] = usual
        return repaired
      }
    }
    return nil
  }

  private mutating func repairDurations(of track: UInt32) {
    let idx = indices(of: track)
    for (n, k) in idx.enumerated() {
      var current = run(k, track)
      let total = current.totalDuration
      guard current.count > 0, let start = current.decodeTime else { continue }
      let nextAdjacent = n + 1 < idx.count && adjacent(k, idx[n + 1], track: track)
      let previous = n > 0 && adjacent(idx[n - 1], k, track: track) ? run(idx[n - 1], track) : nil
      if nextAdjacent, let nextStart = run(idx[n + 1], track).decodeTime, nextStart >= start {
        let expected = nextStart - start
        guard total != expected else { continue }
        if let repaired = repairedDurations(of: current, toLast: expected, in: k) {
          current.durations = repaired
        } else if total < expected {
          continue  // a gap: the last sample lasts until the next fragment (`append`)
        } else if current.durationsFromDefault, expected % UInt64(current.count) == 0, expected > 0 {
          current.durations = Array(repeating: UInt32(expected / UInt64(current.count)), count: current.count)
        } else {
          // Overrunning the next fragment: the last samples end where it starts.
          var excess = Int64(total) - Int64(expected)
          var i = current.durations.count - 1
          while excess > 0 && i >= 0 {
            let cut = max(0, min(excess, Int64(current.durations[i]) - 1))
            current.durations[i] -= UInt32(cut)
            excess -= cut
            i -= 1
          }
        }
      } else if current.durationsFromDefault, let usual = previous.flatMap({ $0.durationsFromDefault ? $0.durations.first : nil }),
        usual != current.durations.first
      {
        // The last fragment (or the last before damage): no next start to check its
        // durations against, but its default should be the one before it, unless
        // another track ends where this default makes it end. (A long duration among
        // durations listed one by one is a gap, a camera that was away: nothing else
        // in the file says it, so it stays.)
        // (A frame rate that changed shows as another track ending with this one; a
        // damaged low bit moves the end by less than a frame, which no other track
        // can tell apart, and a frame rate does not change by that.)
        // With no other track, a default within a factor of four of the one before
        // may be a real change of frame rate, and stays.
        let own = Self.sum(start, total)
        let theirs = Self.sum(start, UInt64(usual) * UInt64(current.count))
        let apart = own > theirs ? own - theirs : theirs - own
        // One bit apart from the one before is a damaged bit, not a new frame rate.
        let oneBitApart = current.durations.first.map { ($0 ^ usual).nonzeroBitCount == 1 } ?? false
        if apart >= UInt64(usual) && !oneBitApart {
          if let other = otherTrackEnd(k, than: track) {
            let distanceOwn = own > other ? own - other : other - own
            let distanceTheirs = theirs > other ? theirs - other : other - theirs
            guard distanceTheirs < distanceOwn else { continue }
          } else if let ownDefault = current.durations.first, ownDefault <= 4 * usual, usual <= 4 * ownDefault {
            continue
          }
        }
        current.durations = Array(repeating: usual, count: current.count)
      } else {
        continue
      }
      if current.totalDuration != total {
        repairs.append(
          "fragment \(k + 1): track \(track)'s durations added up to \(clock(total, track)); re-derived as \(clock(current.totalDuration, track))"
        )
        setRun(k, current)
      }
    }
  }

  /// Composition offsets (B-frames) checked against the decode times: an encoder that
  /// reorders pictures decodes the k-th picture at the presentation time of the one
  /// its delay before it in display order (x264 does; the fragments' timeline starts
  /// at the first decode), so every picture is presented at some picture's decode
  /// time, and no two at one time. An offset that breaks that and is one bit
  /// away from one that keeps it, to a time no other picture has, was damaged and is
  /// set back. A picture presented on another's time, or before the recording starts,
  /// whose time cannot be found so, is left out. Any other odd offset stays: at the end
  /// of a file a crash cut, pictures wait for decode times that were never written.
  private mutating func repairCompositionOffsets(of track: UInt32) {
    let idx = indices(of: track)
    var all: [(k: Int, i: Int, dts: Int64, cto: Int64)] = []
    for k in idx {
      let r = run(k, track)
      guard let start = r.decodeTime, start < 1 << 60, let start64 = Int64(exactly: start) else { return }
      var dts = start64
      for i in 0..<r.count {
        all.append((k, i, dts, Int64(r.compositionOffsets[i])))
        dts += Int64(r.durations[i])
      }
    }
    guard all.count >= 8, all.contains(where: { $0.cto != 0 }) else { return }
    let delay = delays[track] ?? 0
    let decodeTimes = Set(all.map(\.dts))
    var taken: [Int64: Int] = [:]
    for s in all { taken[s.dts + s.cto, default: 0] += 1 }
    // No picture is presented before the recording starts.
    let earliest = all.first?.k == 0 ? delay : Int64.min
    func keepsTheRule(_ pts: Int64) -> Bool { decodeTimes.contains(pts) }
    var offsetCounts: [Int64: Int] = [:]
    for s in all { offsetCounts[s.cto, default: 0] += 1 }
    let lastDecodeTime = all.map(\.dts).max() ?? 0
    /// Presented at a decode time after the last one written (a file a crash cut).
    func pastTheEnd(_ pts: Int64) -> Bool { pts > lastDecodeTime }
    var removed: [(k: Int, i: Int)] = []
    for s in all {
      let pts = s.dts + s.cto
      let collides = (taken[pts] ?? 0) > 1
      let early = pts < earliest
      guard !keepsTheRule(pts) || collides || early else { continue }
      // Waiting for a decode time never written, with an offset other pictures have too.
      if pastTheEnd(pts) && !collides && !early && (offsetCounts[s.cto] ?? 0) > 1 { continue }
      // One bit away, as the 32 bits the field holds (a flipped sign bit is one bit too).
      let candidates = (0..<32).map { Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: s.cto) ^ (1 << UInt32($0)))) }
        .filter { c in
          let place = s.dts + c
          guard place >= earliest, (taken[place] ?? 0) == 0 else { return false }
          return keepsTheRule(place) || (pastTheEnd(place) && (offsetCounts[c] ?? 0) > 1)
        }
      guard candidates.count == 1, let offset = candidates.first, let field = Int32(exactly: offset) else {
        if (collides && !keepsTheRule(pts)) || early {
          // Its time cannot be known: the picture is left out rather than shown at a
          // time it never had.
          taken[pts, default: 1] -= 1
          removed.append((s.k, s.i))
        }
        continue
      }
      var r = run(s.k, track)
      r.compositionOffsets[s.i] = field
      setRun(s.k, r)
      taken[pts, default: 1] -= 1
      taken[s.dts + offset, default: 0] += 1
      repairs.append("fragment \(s.k + 1): track \(track)'s picture \(s.i + 1) had a damaged composition offset; re-derived")
    }
    for (k, i) in removed.reversed() { removeSample(i, of: track, in: k) }
  }

  /// Leaves sample `i` of `track` in fragment `k` out of the index: the sample before it
  /// lasts until the next (the decode times of the others stay), its bytes stay in the
  /// file outside the index, and the loss is listed.
  private mutating func removeSample(_ i: Int, of track: UInt32, in k: Int) {
    var r = run(k, track)
    guard r.sizes.indices.contains(i), let start = r.decodeTime else { return }
    let ranges = r.sampleRanges
    let sampleStart = start + r.durations[..<i].reduce(0) { $0 + UInt64($1) }
    lostSamples.append((k, track, sampleStart, sampleStart + UInt64(r.durations[i])))
    if i > 0 {
      r.durations[i - 1] += r.durations[i]
    } else {
      r.decodeTime = start + UInt64(r.durations[0])
    }
    r.durations.remove(at: i)
    r.sizes.remove(at: i)
    r.sampleFlags.remove(at: i)
    r.compositionOffsets.remove(at: i)
    var kept = ranges
    kept.remove(at: i)
    r.chunks = []
    var end: Int64 = -1
    for range in kept {
      if range.lowerBound == end, !r.chunks.isEmpty {
        r.chunks[r.chunks.count - 1].samples += 1
      } else {
        r.chunks.append((range.lowerBound, 1))
      }
      end = range.upperBound
    }
    setRun(k, r)
  }

  /// Where another track's samples in fragment `k` end, in `track`'s ticks.
  private func otherTrackEnd(_ k: Int, than track: UInt32) -> UInt64? {
    for other in fragments[k].runs where other.track != track {
      guard let t = other.decodeTime, let from = timescales[other.track], let to = timescales[track], from > 0 else { continue }
      return Self.ticks(Double(t) / Double(from) * Double(to) + Double(other.totalDuration) / Double(from) * Double(to))
    }
    return nil
  }
}
