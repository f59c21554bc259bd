import ArgumentParser
import CamfxMedia

/// `camfx repair FILE`: finishes a fragmented MP4 that a crash, a power cut or a full
/// disk left behind, in place, as a clean stop would have: every fragment that can be
/// trusted goes into the full index (`FragmentedMovieFinisher`).
///
///     camfx repair cam-20261124-101500.mp4
///
/// Exit 0 when everything but a torn last fragment was kept (the normal state after a
/// crash), also when damaged header fields could be re-derived (each is printed); 1,
/// after finishing the file with everything intact, when damaged fragments (or one
/// track of one) had to be left out, with where they were in the file's timeline.
struct RepairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "repair",
    abstract: "Finish a camfx recording left fragmented by a crash (in place, without copying the media).",
    discussion: """
      Writes the index of every fragment that can be trusted and turns the file into a regular \
      MP4 that every player and editor opens. A torn last fragment (a crash while it was \
      written) is left out. A damaged header field is re-derived from what the file says \
      twice (a decode time from the previous fragment's end, sample sizes from the H.264/HEVC \
      units, a keyframe from its picture) and printed; a fragment that cannot be read is left \
      out alone, the fragments after it are kept, and the exit status is 1 with the seconds \
      lost. Nothing is cut from the file, but a torn last fragment when a full disk leaves \
      no room for the index. A file that was finished already is left as it is; a file that camfx did not \
      write fragmented, or that holds no complete fragment, is refused, unchanged.
      """)

  @Argument(help: ArgumentHelp("The .mp4 or .mov file to repair.", valueName: "file"))
  var file: String

  func run() throws {
    let report: FragmentedMovieFinisher.Report
    do {
      report = try FragmentedMovieFinisher.finish(path: file)
    } catch {
      throw RepairFailure(message: "cannot repair '\(file)': \(error.description)")
    }
    if report.wasFinished {
      print("\(file) is already a finished MP4; nothing to do")
      return
    }
    let tracks = report.trackKinds.isEmpty ? "nothing" : report.trackKinds.joined(separator: " and ")
    var line = "\(file): kept \(Self.clock(report.seconds)) of \(tracks) in \(report.fragments) fragments"
    if report.tailBytes > 0 && report.tailIsTorn {
      line += report.cutBytes > 0
        ? "; cut \(Self.kilobytes(report.cutBytes)) of a torn last fragment to make room for the index"
        : "; left out \(Self.kilobytes(report.tailBytes)) of a torn last fragment"
    }
    print(line)
    for repair in report.repairs { print("  repaired: \(repair)") }
    guard report.keptEverythingIntact else {
      let lost = report.losses.map { loss in
        let what = loss.tracks.isEmpty ? "frames" : loss.tracks.map { $0 == "audio" ? "sound" : $0 }.joined(separator: " or ")
        var place = "bytes \(loss.bytes.lowerBound)-\(loss.bytes.upperBound)"
        switch (loss.from, loss.to, loss.pictures) {
        case let (from?, to?, pictures?):
          place += " (\(pictures) \(pictures == 1 ? "picture" : "pictures") between \(Self.clock(from)) and \(Self.clock(to)))"
        case let (from?, to?, nil): place += " (no \(what) from \(Self.clock(from)) to \(Self.clock(to)))"
        case let (from?, nil, _): place += " (no \(what) after \(Self.clock(from)))"
        default: break
        }
        return place
      }
      throw RepairFailure(message: "'\(file)' was damaged; left out of the finished file: \(lost.joined(separator: ", "))")
    }
  }

  /// `hh:mm:ss.t`.
  static func clock(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded(.down))
    let h = tenths / 36000
    let m = tenths / 600 % 60
    let s = tenths / 10 % 60
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(h)):\(two(m)):\(two(s)).\(tenths % 10)"
  }

  static func kilobytes(_ bytes: Int64) -> String {
    bytes < 1000 ? "\(bytes) B" : "\((bytes + 500) / 1000) kB"
  }
}

struct RepairFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
