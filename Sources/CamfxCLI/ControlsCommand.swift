import ArgumentParser
import Camfx
import CamfxCapture

/// `camfx controls`: a camera's controls with type, range, default and current value;
/// `--control name=value` sets some first (and works while another camfx records).
///
///     camfx controls --source /dev/video0
///     camfx controls --source /dev/video0 --control brightness=140
struct ControlsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "controls",
    abstract: "List (and set) a camera's controls.")

  @Option(help: ArgumentHelp("The camera, e.g. /dev/video0 (default: the first camera).", valueName: "device"))
  var source: String?

  @Option(name: .customLong("control"), help: ArgumentHelp(
    "Set a control first, e.g. brightness=140; repeatable.", valueName: "name=value"))
  var controls: [String] = []

  func run() throws {
    let assignments = try controls.map { try ControlAssignment(parsing: $0) }
    let path: String
    if let source {
      path = source
    } else if let first = CameraDevice.discover().cameras.first {
      path = first.path
    } else {
      throw CaptureOptionError("no camera found (camfx devices lists them); name one with --source /dev/videoN")
    }
    let camera = try CameraControls(path: path)
    try camera.set(assignments)
    print(Self.table(path: path, card: camera.card, controls: try camera.list()), terminator: "")
  }

  static func table(path: String, card: String, controls: [CameraControl]) -> String {
    var rows: [[String]] = [["NAME", "TYPE", "RANGE", "DEFAULT", "CURRENT"]]
    for c in controls {
      var current = c.value.map(String.init) ?? "-"
      if let v = c.value, let item = c.menu.first(where: { $0.index == v }) { current += " (\(item.name))" }
      var flags: [String] = []
      if c.isReadOnly { flags.append("read-only") }
      if c.isInactive { flags.append("inactive") }
      if !flags.isEmpty { current += " [\(flags.joined(separator: ", "))]" }
      let isValued = c.kind != .button && c.kind != .string
      rows.append([c.name, c.kind.rawValue, c.rangeDescription, isValued ? String(c.defaultValue) : "-", current])
    }
    let widths = (0..<4).map { col in rows.map { $0[col].count }.max()! }
    var out = "\(path): \(card)\n"
    for (i, row) in rows.enumerated() {
      var line = "  "
      for col in 0..<4 { line += row[col] + String(repeating: " ", count: widths[col] - row[col].count + 2) }
      out += line + row[4] + "\n"
      if i > 0, !controls[i - 1].menu.isEmpty {
        for item in controls[i - 1].menu { out += "      \(item.index): \(item.name)\n" }
      }
    }
    return out
  }
}
