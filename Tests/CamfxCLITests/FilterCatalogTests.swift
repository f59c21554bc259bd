import Camfx
import XCTest

private struct Sparkle: InPlaceVideoFilter {
  static let name = "sparkle"
  static let summary = "Adds sparkles."
  static let example = "camfx snapshot --filter sparkle=amount=3 -o sparkle.png"
  static let options: [FilterOption] = [
    FilterOption("amount", .integer(1...10), required: true, help: "How many sparkles."),
    FilterOption("colour", .choice(["gold", "silver"]), default: "gold", help: "Their colour."),
    FilterOption("seed", .integer(0...Int.max), help: "Random seed."),
  ]
  init(options: FilterOptions) throws {}
  mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }
  func process(_ frame: inout PixelBuffer) {}
}

private struct Plain: InPlaceVideoFilter {
  static let name = "plain"
  static let summary = "Does nothing."
  static let example = "camfx snapshot --filter plain -o plain.png"
  static let options: [FilterOption] = []
  init(options: FilterOptions) throws {}
  mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }
  func process(_ frame: inout PixelBuffer) {}
}

final class FilterCatalogTests: XCTestCase {
  func testCatalogLayout() {
    XCTAssertEqual(FilterRegistry([FilterDescriptor(Sparkle.self), FilterDescriptor(Plain.self)]).catalog, """
      Filters (use --filter NAME or --filter NAME=KEY=VALUE:KEY=VALUE; repeat --filter to chain):

      sparkle: Adds sparkles.
        amount  int 1...10   required      How many sparkles.
        colour  gold|silver  default gold  Their colour.
        seed    int >= 0     optional      Random seed.
        example: camfx snapshot --filter sparkle=amount=3 -o sparkle.png

      plain: Does nothing.
        (no options)
        example: camfx snapshot --filter plain -o plain.png

      """)
  }

  func testEmptyRegistry() {
    XCTAssertEqual(FilterRegistry([]).catalog, "No filters are registered.\n")
  }
}
