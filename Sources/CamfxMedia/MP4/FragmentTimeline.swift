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
  /// What was re-derived, for the report.
  private(set) var repairs: [String] = []

  init(fragments: [FragmentedMovieScan.KeptFragment], tracks: [UInt32], timescales: [UInt32: UInt32]) {
    self.fragments = fragments
    self.tracks = tracks
    self.timescales = timescales
  }

  mutating func repair() {
    for track in tracks {
      repairStarts(of: track)
      repairDurations(of: track)
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

  private func run(_ k: Int, _ track: UInt32) -> MovieFragment.Run { fragments[k].run(of: track)! }

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
      return UInt64((Double(t) / Double(from) * Double(to)).rounded())
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
      let prevEnd = n > 0 ? starts[n - 1] &+ run(idx[n - 1], track).totalDuration : nil
      let prevAdjacent = n > 0 && adjacent(idx[n - 1], k, track: track)
      let nextAdjacent = n + 1 < idx.count && adjacent(k, idx[n + 1], track: track)
      let nextStated = nextAdjacent ? run(idx[n + 1], track).decodeTime : nil
      let confirmedByNext = stated != nil && nextStated != nil && nextStated! == stated! &+ total
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
        // A start that differs from the previous end is a gap only when the next
        // fragment confirms it (then the previous durations may be the damaged ones).
        chosen = stated == prevEnd || confirmedByNext ? stated! : prevEnd
      } else {
        // After damage: the stated start, where something confirms it and it lies no
        // further than the damaged bytes could hold.
        let floor = prevEnd ?? 0
        let bytesBetween = fragments[k].range.lowerBound - (n > 0 ? fragments[idx[n - 1]].range.upperBound : 0)
        let keptBytes = idx.reduce(Int64(0)) { $0 + Int64(fragments[$1].range.count) }
        let keptTicks = idx.reduce(UInt64(0)) { $0 + run($1, track).totalDuration }
        let expectedGap = keptBytes > 0 ? UInt64(Double(bytesBetween) / Double(keptBytes) * Double(keptTicks)) : longest
        if let stated, stated >= floor, confirmedByNext || agreesWithOtherTrack,
          stated - floor <= 2 * expectedGap + longest
        {
          chosen = stated
        } else if let nextStated, nextStated >= total, nextStated - total >= floor,
          nextStated - total - floor <= 2 * expectedGap + longest
        {
          chosen = nextStated - total
        } else if let stated, stated >= floor, stated - floor <= 2 * expectedGap + longest {
          chosen = stated
        } else {
          chosen = floor + expectedGap
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

  private mutating func repairDurations(of track: UInt32) {
    let idx = indices(of: track)
    for (n, k) in idx.enumerated() {
      var current = run(k, track)
      let total = current.totalDuration
      guard current.count > 0, let start = current.decodeTime else { continue }
      let nextAdjacent = n + 1 < idx.count && adjacent(k, idx[n + 1], track: track)
      let previous = n > 0 && adjacent(idx[n - 1], k, track: track) ? run(idx[n - 1], track) : nil
      let following = nextAdjacent ? run(idx[n + 1], track) : nil
      // The default duration the neighbours use, where they use one.
      let neighbourDefaults = [previous, following].compactMap { $0 }.filter { $0.durationsFromDefault }.compactMap(\.durations.first)
      if nextAdjacent, let nextStart = following?.decodeTime, nextStart >= start {
        let expected = nextStart - start
        guard total != expected else { continue }
        if current.durationsFromDefault {
          if let d = neighbourDefaults.first(where: { UInt64($0) * UInt64(current.count) == expected }) {
            current.durations = Array(repeating: d, count: current.count)
          } else if total > expected, expected % UInt64(current.count) == 0, expected > 0 {
            current.durations = Array(repeating: UInt32(expected / UInt64(current.count)), count: current.count)
          }
        } else {
          // One damaged duration: the one that, set back by the difference, is like the others.
          let delta = Int64(total) - Int64(expected)
          for i in current.durations.indices {
            var others = current.durations
            others.remove(at: i)
            if let usual = Self.mode(others), Int64(current.durations[i]) - delta == Int64(usual) {
              current.durations[i] = usual
              break
            }
          }
        }
        // Still overrunning the next fragment: the last samples end where it starts.
        var excess = Int64(current.totalDuration) - Int64(expected)
        var i = current.durations.count - 1
        while excess > 0 && i >= 0 {
          let cut = min(excess, Int64(current.durations[i]) - 1)
          current.durations[i] -= UInt32(max(0, cut))
          excess -= max(0, cut)
          i -= 1
        }
      } else if current.durationsFromDefault, let usual = neighbourDefaults.first, usual != current.durations.first {
        // The last fragment (or the last before damage): no next start to check its
        // durations against, but its default should be its neighbour's, unless
        // another track ends where this default makes it end.
        let own = start &+ total
        let theirs = start &+ UInt64(usual) * UInt64(current.count)
        if let other = otherTrackEnd(k, than: track) {
          let distanceOwn = own > other ? own - other : other - own
          let distanceTheirs = theirs > other ? theirs - other : other - theirs
          guard distanceTheirs < distanceOwn else { continue }
        }
        current.durations = Array(repeating: usual, count: current.count)
      } else if !current.durationsFromDefault, let usual = Self.mode(current.durations), let other = otherTrackEnd(k, than: track),
        start &+ total > other &+ UInt64(timescales[track] ?? 0)
      {
        // A duration far beyond the usual that makes this track outlast the others by
        // more than a second.
        for i in current.durations.indices where current.durations[i] > 4 * usual { current.durations[i] = usual }
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

  /// Where another track's samples in fragment `k` end, in `track`'s ticks.
  private func otherTrackEnd(_ k: Int, than track: UInt32) -> UInt64? {
    for other in fragments[k].runs where other.track != track {
      guard let t = other.decodeTime, let from = timescales[other.track], let to = timescales[track], from > 0 else { continue }
      return UInt64((Double(t &+ other.totalDuration) / Double(from) * Double(to)).rounded())
    }
    return nil
  }
}
