import ArgumentParser
import Camfx

@main
struct CamfxCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "camfx",
    abstract: "Record, filter and snapshot camera frames on Linux.",
    subcommands: [])
}
