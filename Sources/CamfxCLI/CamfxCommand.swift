import ArgumentParser
import Camfx

/// The `camfx` command. Its `main` reports every error as one line, `camfx: error: ...`:
/// usage errors with exit status 64, the program's own with 1 (`CommandLineError`).
@main
struct CamfxCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "camfx",
    abstract: "Record, filter and snapshot camera frames on Linux.",
    version: CamfxVersion.current,
    subcommands: [
      RecordCommand.self, SnapshotCommand.self, FiltersCommand.self, BenchCommand.self, DevicesCommand.self,
      ControlsCommand.self, RepairCommand.self, PreviewCommand.self, ComposeCommand.self, EventsCommand.self,
      MotionCommand.self, RunCommand.self, ArchiveCommand.self,
    ],
    defaultSubcommand: RecordCommand.self)

  static func main() async {
    let command: any ParsableCommand
    do {
      command = try parseAsRoot()
    } catch {
      CommandLineError.exit(with: error)
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
