import ArgumentParser
import CamfxMedia

/// `camfx repair FILE`: finishes a fragmented MP4 that a crash, a power cut or a full
/// disk left behind, in place, as a clean stop would have: the torn last fragment is
/// cut and the full index written (`FragmentedMovieFinisher`).
///
///     camfx repair cam-20261124-101500.mp4
struct RepairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "repair",
    abstract: "Finish a camfx recording left fragmented by a crash (in place, without copying the media).",
    discussion: """
      Cuts a torn last fragment, writes the index and turns the file into a regular MP4 \
      that every player and editor opens. A file that was finished already is left as it is; \
      a file that camfx did not write fragmented is refused, unchanged.
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
    if report.cutBytes > 0 { line += "; cut \(Self.kilobytes(report.cutBytes)) of a torn fragment" }
    print(line)
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
