/// A named part of the picture with rules of its own: motion there counts when at least
/// `area` percent of it changes, each pixel by more than `threshold` luma levels (when
/// given; otherwise the detector's). With zones, only motion inside them counts.
///
///     try MotionZone("door:100,50 300,50 300,400 100,400:area=2%:threshold=20")
public struct MotionZone: Sendable, Equatable {
  public var name: String
  public var polygon: MotionPolygon
  /// Percent of the zone that must change; nil: the detector's `area`.
  public var area: Double?
  /// Luma levels a pixel must change by; nil: the detector's threshold.
  public var threshold: Int?

  public init(name: String, polygon: MotionPolygon, area: Double? = nil, threshold: Int? = nil) {
    self.name = name
    self.polygon = polygon
    self.area = area
    self.threshold = threshold
  }

  /// - Parameter text: `NAME:X,Y X,Y X,Y[:area=P%][:threshold=N]`.
  /// - Throws: `MotionOptionError`, one line naming what is wrong.
  public init(_ text: String) throws(MotionOptionError) {
    let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(\.trimmed)
    guard fields.count >= 2 else {
      throw MotionOptionError("'\(text)' is not a zone: expected NAME:X,Y X,Y X,Y[:area=P%][:threshold=N]")
    }
    name = fields[0]
    guard !name.isEmpty else {
      throw MotionOptionError("'\(text)': a zone needs a name (NAME:X,Y X,Y X,Y)")
    }
    guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
      throw MotionOptionError("zone '\(name)': a name is letters, digits, '-' and '_'")
    }
    do {
      polygon = try MotionPolygon(fields[1])
    } catch {
      throw MotionOptionError("zone '\(name)': \(error)")
    }
    for field in fields.dropFirst(2) {
      let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
      switch (pair.first, pair.count) {
      case ("area", 2):
        area = try MotionDetector.Options.percent(pair[1], option: "zone '\(name)' area", range: 0.01...100)
      case ("threshold", 2):
        threshold = try MotionDetector.Options.level(pair[1], option: "zone '\(name)' threshold")
      default:
        throw MotionOptionError("zone '\(name)': unknown setting '\(field)' (expected area=P% or threshold=N)")
      }
    }
  }
}

extension Substring {
  /// Without spaces and tabs at either end.
  fileprivate var trimmed: String {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return String(text)
  }
}
