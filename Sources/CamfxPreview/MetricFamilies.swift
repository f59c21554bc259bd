import Foundation

/// Figures in Prometheus's text exposition format (version 0.0.4), gathered family by
/// family: each family's `# HELP` and `# TYPE` once, before its samples, whichever
/// camera added them first; label values escaped (`\`, `"`, newline). What `/metrics`
/// serves.
///
///     var families = MetricFamilies()
///     families.add("camfx_frames_total", .counter, help: "Frames through the recording.",
///                  labels: [("camera", "front"), ("stage", "out")], value: 375)
///     families.text  // # HELP camfx_frames_total Frames through the recording.\n# TYPE ...
public struct MetricFamilies: Sendable {
  public enum Kind: String, Sendable {
    case counter, gauge
  }

  private struct Family: Sendable {
    var kind: Kind
    var help: String
    var samples: [String]
  }

  private var names: [String] = []
  private var families: [String: Family] = [:]

  public init() {}

  /// Adds one sample of the family `name` (a counter's name ends in `_total`; units are
  /// base units: seconds, bytes, ratios 0...1).
  public mutating func add(_ name: String, _ kind: Kind, help: String, labels: [(String, String)] = [], value: Double) {
    let labelText = labels.isEmpty
      ? "" : "{" + labels.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
    let sample = name + labelText + " " + Self.number(value)
    if families[name] == nil {
      names.append(name)
      families[name] = Family(kind: kind, help: help, samples: [])
    }
    families[name]?.samples.append(sample)
  }

  /// The exposition, every line ending in a newline.
  public var text: String {
    var out = ""
    for name in names {
      guard let family = families[name] else { continue }
      out += "# HELP \(name) \(Self.escapedHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
      for sample in family.samples { out += sample + "\n" }
    }
    return out
  }

  static func escapedLabel(_ value: String) -> String {
    var out = ""
    for c in value {
      switch c {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      default: out.append(c)
      }
    }
    return out
  }

  static func escapedHelp(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
  }

  /// Whole numbers without a fraction; NaN and the infinities as Prometheus spells them.
  static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}
