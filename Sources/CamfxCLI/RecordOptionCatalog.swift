import ArgumentParser
import Foundation

/// `camfx record`'s options as the keys of a camera in a `camfx run` file: every long
/// name (`fps`, `max-size`) and the short ones (`o`, `y`, `v`), read from
/// ArgumentParser's own description of `RecordCommand`. A key is an option by
/// construction: the file can never know an option the command line does not, nor
/// miss one that is added.
///
///     fps: 30                  →  --fps=30
///     filter: [mirror, text]   →  --filter=mirror --filter=text
///     motion: true             →  --motion          (false: nothing)
///     realtime: false          →  --no-realtime     (the other half of --[no-]realtime)
///
/// Values are given as `--name=value`, so a value that starts with `-` (`output: -`)
/// is never taken for an option.
struct RecordOptionCatalog {
  enum Kind: Equatable {
    /// Given or not; `inverse` is the `no-X` of a `--[no-]X` pair, which `false` gives.
    case flag(inverse: String?)
    /// Takes a value; `repeats` when it may be given more than once (a list in YAML).
    case option(repeats: Bool)
  }

  struct Entry: Equatable {
    /// The long name the argument is given by.
    var name: String
    var kind: Kind
  }

  /// Every name a key may be (long and short), to its entry.
  private let entries: [String: Entry]
  /// The long names, in the command's order (for suggestions).
  let longNames: [String]

  /// `camfx record`'s, less `--help` and `--version`.
  static let record = RecordOptionCatalog(describing: RecordCommand.self, leaving: ["help", "version"])

  /// - Parameter leaving: long names that are not options of a recording.
  init(describing command: any ParsableArguments.Type, leaving: Set<String>) {
    var entries: [String: Entry] = [:]
    var longNames: [String] = []
    let json = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any]
    let arguments = (json?["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
    var flags: Set<String> = []
    var described: [(names: [(kind: String, name: String)], isFlag: Bool, repeats: Bool)] = []
    for argument in arguments {
      let kind = argument["kind"] as? String
      guard kind == "flag" || kind == "option" else { continue }
      let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> (kind: String, name: String)? in
        guard let kind = name["kind"] as? String, let text = name["name"] as? String else { return nil }
        return (kind, text)
      }
      let isFlag = kind == "flag"
      if isFlag { for name in names where name.kind == "long" { flags.insert(name.name) } }
      described.append((names, isFlag, argument["isRepeating"] as? Bool ?? false))
    }
    for argument in described {
      guard let long = argument.names.first(where: { $0.kind == "long" })?.name, !leaving.contains(long) else { continue }
      let kind: Kind =
        argument.isFlag
        ? .flag(inverse: flags.contains("no-" + long) ? "no-" + long : nil) : .option(repeats: argument.repeats)
      let entry = Entry(name: long, kind: kind)
      for name in argument.names { entries[name.name] = entry }
      longNames.append(long)
    }
    self.entries = entries
    self.longNames = longNames
  }

  func entry(_ key: String) -> Entry? { entries[key] }

  /// The long name closest to a mistyped `key`, when one is close (as ArgumentParser
  /// suggests on the command line: fewer than 4 edits).
  func suggestion(for key: String) -> String? {
    let scored = longNames.map { ($0, Self.editDistance($0, key)) }.filter { $0.1 < 4 }
    return scored.min { $0.1 < $1.1 }?.0
  }

  /// Levenshtein distance of two words.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}
