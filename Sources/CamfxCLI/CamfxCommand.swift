import ArgumentParser
import Camfx

/// The `camfx` command. Its `main` reports the program's own errors as one line,
/// `camfx: error: ...`, exit status 1; usage errors keep swift-argument-parser's
/// format and exit status 64.
@main
struct CamfxCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "camfx",
    abstract: "Record, filter and snapshot camera frames on Linux.",
    version: CamfxVersion.current,
    subcommands: [
      RecordCommand.self, SnapshotCommand.self, FiltersCommand.self, BenchCommand.self, DevicesCommand.self,
      ControlsCommand.self, RepairCommand.self,
    ],
    defaultSubcommand: RecordCommand.self)

  static func main() async {
    let command: any ParsableCommand
    do {
      command = try parseAsRoot()
    } catch {
      exit(withError: error)
    }
    do {
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        var syncCommand = command
        try syncCommand.run()
      }
    } catch {
      CommandLineError.exit(with: error)
    }
  }
}
