import Foundation

/// JSON for `comparison.json` (Foundation is fine here: not a hot path, not the product).
enum JSONOutput {
  static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array(try encoder.encode(value))
  }

  static func decode<T: Decodable>(_ type: T.Type, path: String) throws -> T {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw UsageError("cannot read \(path)")
    }
    return try JSONDecoder().decode(type, from: data)
  }
}
