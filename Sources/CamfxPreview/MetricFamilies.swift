import Prometheus

/// Figures for `/metrics`, gathered at each scrape and written in Prometheus's text
/// format by swift-prometheus's registry (names, label values and help escaped and
/// checked there). camfx's figures are counters and gauges it already keeps, read when
/// Prometheus asks; so a scrape fills a registry of its own rather than keeping one in
/// step with every change.
///
///     var families = MetricFamilies()
///     families.add("camfx_frames_total", .counter, help: "Frames through the recording.",
///                  labels: [("camera", "front"), ("stage", "out")], value: 375)
///     families.text  // # HELP camfx_frames_total Frames through the recording.\n# TYPE ...
///
/// A family is what its first sample says: a later sample of another kind, or without
/// labels where the first had them (or the other way round), is left out (the registry
/// would stop the program for it).
public struct MetricFamilies: Sendable {
  public enum Kind: String, Sendable {
    case counter, gauge
  }

  private struct Sample: Sendable {
    var name: String
    var labels: [(String, String)]
    var value: Double
  }

  private struct Family: Sendable {
    var kind: Kind
    var help: String
    var labelled: Bool
  }

  private var families: [String: Family] = [:]
  private var samples: [Sample] = []

  public init() {}

  /// Adds one sample of the family `name` (a counter's name ends in `_total`; units are
  /// base units: seconds, bytes, ratios 0...1).
  public mutating func add(_ name: String, _ kind: Kind, help: String, labels: [(String, String)] = [], value: Double) {
    if let family = families[name] {
      guard family.kind == kind, family.labelled == !labels.isEmpty else { return }
    } else {
      families[name] = Family(kind: kind, help: help, labelled: !labels.isEmpty)
    }
    samples.append(Sample(name: name, labels: labels, value: value))
  }

  /// The exposition, every line ending in a newline.
  public var text: String {
    let registry = PrometheusCollectorRegistry()
    for sample in samples {
      guard let family = families[sample.name] else { continue }
      let descriptor = MetricNameDescriptor(metricName: sample.name, unitName: "", helpText: family.help)
      switch family.kind {
      case .counter:
        let counter = registry.makeCounter(descriptor: descriptor, labels: sample.labels)
        if sample.value == sample.value.rounded(), abs(sample.value) < 1e15 {
          counter.increment(by: Int64(sample.value))
        } else {
          counter.increment(by: sample.value)
        }
      case .gauge:
        registry.makeGauge(descriptor: descriptor, labels: sample.labels).set(sample.value)
      }
    }
    return registry.emitToString()
  }
}
