import Foundation

/// JSON for `comparison.json` (Foundation is fine here: not a hot path, not the product).
enum JSONOutput {
  static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array(try encoder.encode(value))
  }
}
