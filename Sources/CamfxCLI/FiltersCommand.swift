import ArgumentParser
import Camfx

/// `camfx filters`: lists every registered filter with its keys and an example.
struct FiltersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filters",
    abstract: "List the filters with their keys, types, defaults and an example.")

  func run() throws {
    print(FilterRegistry.builtin.catalog, terminator: "")
  }
}
