import ArgumentParser
import CamfxMedia

/// `camfx repair FILE`: finishes a fragmented MP4 that a crash, a power cut or a full
/// disk left behind, in place, as a clean stop would have: every fragment that can be
/// trusted goes into the full index (`FragmentedMovieFinisher`).
///
///     camfx repair cam-20261124-101500.mp4
///
/// Exit 0 when everything but a torn last fragment was kept (the normal state after a
/// crash); 1, after finishing the file with everything intact, when damaged fragments
/// had to be left out, with where they were.
struct RepairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "repair",
    abstract: "Finish a camfx recording left fragmented by a crash (in place, without copying the media).",
    discussion: """
      Writes the index of every fragment that can be trusted and turns the file into a regular \
      MP4 that every player and editor opens. A torn last fragment (a crash while it was \
      written) is left out; a damaged fragment in the middle is left out too, the fragments \
      after it are kept, and the exit status is 1 with what was lost. Nothing is cut from the \
      file. A file that was finished already is left as it is; a file that camfx did not \
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
    guard report.keptEverythingIntact else {
      var lost = report.losses.map { loss in
        let place = "bytes \(loss.bytes.lowerBound)-\(loss.bytes.upperBound)"
        guard let seconds = loss.seconds else { return place }
        return "\(place) (no frames from \(Self.clock(seconds.lowerBound)) to \(Self.clock(seconds.upperBound)))"
      }
      if !report.tailIsTorn && report.tailBytes > 0 {
        lost.append("\(Self.kilobytes(report.tailBytes)) of a damaged last fragment")
      }
      throw RepairFailure(
        message: "'\(file)' had damaged fragments, left out of the finished file: \(lost.joined(separator: ", "))")
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
