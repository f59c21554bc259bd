import CamfxCore

/// How a mosaic places its cameras in the output picture:
///
///     grid              hstack           vstack       pip=cam2:corner=br:size=25%
///     ┌────┬────┐       ┌───┬───┬───┐    ┌───────┐    ┌──────────────┐
///     │ c1 │ c2 │       │c1 │c2 │c3 │    │  c1   │    │      c1      │
///     ├────┼────┤       └───┴───┴───┘    ├───────┤    │      ┌─────┐ │
///     │ c3 │ ░░ │                        │  c2   │    │      │cam2 │ │
///     └────┴────┘                        └───────┘    │      └─────┘ │
///     columns = ⌈√N⌉,                                 └──────────────┘
///     a cell left over is black
///
/// Cells split the output evenly (their corners and sides even, for 4:2:0); each camera
/// is letterboxed in its cell. Picture-in-picture shows two cameras: the other one fills
/// the picture and the named one sits in a corner (`tl`, `tr`, `bl`, `br`; default
/// `br`), `size` percent of the output's width and height (default 25%), a margin of
/// 1/40 of the output's shorter side from the edges.
///
/// The text is parsed by `init(parsing:cameras:)`, like a filter's options: `grid`, `hstack`,
/// `vstack` or `pip=CAMERA[:corner=C][:size=P%]`.
public enum MosaicLayout: Sendable, Equatable {
  case grid
  case hstack
  case vstack
  /// `camera` (an index into the mosaic's cameras) in `corner`, `percent` of the
  /// output's size.
  case pip(camera: Int, corner: Corner, percent: Int)

  public enum Corner: String, Sendable, CaseIterable {
    case topLeft = "tl", topRight = "tr", bottomLeft = "bl", bottomRight = "br"
  }

  /// The inset's size range, in percent of the output.
  public static let pipPercents = 5...95
  public static let names = ["grid", "hstack", "vstack", "pip=CAMERA"]

  /// Parses a layout for `cameras` (their names, in order).
  ///
  ///     try MosaicLayout(parsing: "pip=cam2:corner=tl:size=30%", cameras: ["cam1", "cam2"])
  ///
  /// - Throws: `MosaicError` for an unknown layout, options on a layout that takes none,
  ///   an unknown or repeated key, a pip naming a camera that does not exist, a bad
  ///   corner or size, no cameras, or a pip of other than two cameras.
  public init(parsing text: String, cameras: [String]) throws(MosaicError) {
    func error(_ subject: String? = nil, _ value: String? = nil, _ reason: String) -> MosaicError {
      MosaicError(layout: text, subject: subject, value: value, reason: reason)
    }
    var parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    let head = parts.removeFirst()
    let name = head.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
    guard !cameras.isEmpty else { throw error(nil, nil, "no cameras") }
    switch name {
    case "grid", "hstack", "vstack":
      guard head == name else {
        throw error(nil, nil, "'\(name)' takes no camera (only pip=CAMERA does)")
      }
      if let first = parts.first {
        let key = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
        throw error("key '\(key)'", nil, "unknown key (\(name) takes no options)")
      }
      self = name == "grid" ? .grid : name == "hstack" ? .hstack : .vstack
    case "pip":
      let camera = head.dropFirst("pip".count).drop(while: { $0 == "=" })
      guard head.hasPrefix("pip="), !camera.isEmpty else {
        throw error(nil, nil, "pip needs the inset camera's name (pip=CAMERA[:corner=tl|tr|bl|br][:size=25%])")
      }
      guard let index = cameras.firstIndex(of: String(camera)) else {
        throw error("camera '\(camera)'", nil, "no such camera (cameras: \(cameras.joined(separator: ", ")))")
      }
      guard cameras.count == 2 else {
        throw error(
          nil, nil,
          "pip shows two cameras, the inset and the full picture (got \(cameras.count): \(cameras.joined(separator: ", ")))")
      }
      var corner = Corner.bottomRight, percent = 25
      var seen: Set<String> = []
      for part in parts {
        let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let key = pair[0], value = pair.count > 1 ? pair[1] : ""
        guard key == "corner" || key == "size" else {
          throw error("key '\(key)'", nil, "unknown key (known: corner, size)")
        }
        guard seen.insert(key).inserted else { throw error("key '\(key)'", nil, "given twice") }
        if key == "corner" {
          guard let c = Corner(rawValue: value) else {
            throw error("key 'corner'", value, "expected one of \(Corner.allCases.map(\.rawValue).joined(separator: ", "))")
          }
          corner = c
        } else {
          let digits = value.hasSuffix("%") ? String(value.dropLast()) : value
          guard let p = Int(digits), Self.pipPercents.contains(p) else {
            throw error(
              "key 'size'", value,
              "expected a percentage of the output in \(Self.pipPercents.lowerBound)%...\(Self.pipPercents.upperBound)%")
          }
          percent = p
        }
      }
      self = .pip(camera: index, corner: corner, percent: percent)
    default:
      throw error(nil, nil, "unknown layout (known: \(Self.names.joined(separator: ", ")))")
    }
  }

  /// The layout as text, `init(parsing:cameras:)`'s form, with `cameras`' names.
  public func text(cameras: [String]) -> String {
    switch self {
    case .grid: return "grid"
    case .hstack: return "hstack"
    case .vstack: return "vstack"
    case .pip(let camera, let corner, let percent):
      let name = cameras.indices.contains(camera) ? cameras[camera] : "#\(camera)"
      return "pip=\(name):corner=\(corner.rawValue):size=\(percent)%"
    }
  }

  /// Where each camera goes in an output of `size`, in drawing order, and the cells no
  /// camera uses (a grid's last row), which stay black.
  ///
  /// - Precondition: `size` has even sides, and `cameras` is at least 1 (2 for pip).
  public func cells(cameras: Int, in size: FrameGeometry) -> (cells: [(camera: Int, rectangle: PixelRectangle)], unused: [PixelRectangle]) {
    precondition(cameras > 0 && size.width % 2 == 0 && size.height % 2 == 0)
    /// Even boundaries that split `length` into `parts`.
    func cut(_ length: Int, _ parts: Int, _ k: Int) -> Int { k * length / parts & ~1 }
    func tiles(columns: Int, rows: Int) -> [PixelRectangle] {
      var made: [PixelRectangle] = []
      for row in 0..<rows {
        for column in 0..<columns {
          let x = cut(size.width, columns, column), y = cut(size.height, rows, row)
          let right = column == columns - 1 ? size.width : cut(size.width, columns, column + 1)
          let bottom = row == rows - 1 ? size.height : cut(size.height, rows, row + 1)
          made.append(PixelRectangle(x: x, y: y, width: right - x, height: bottom - y))
        }
      }
      return made
    }
    switch self {
    case .grid:
      var columns = 1
      while columns * columns < cameras { columns += 1 }
      let rows = (cameras + columns - 1) / columns
      let all = tiles(columns: columns, rows: rows)
      return (all.prefix(cameras).enumerated().map { ($0.offset, $0.element) }, Array(all.dropFirst(cameras)))
    case .hstack:
      return (tiles(columns: cameras, rows: 1).enumerated().map { ($0.offset, $0.element) }, [])
    case .vstack:
      return (tiles(columns: 1, rows: cameras).enumerated().map { ($0.offset, $0.element) }, [])
    case .pip(let inset, let corner, let percent):
      precondition(cameras == 2, "pip shows two cameras")
      let full = PixelRectangle(x: 0, y: 0, width: size.width, height: size.height)
      let w = max(2, size.width * percent / 100 & ~1), h = max(2, size.height * percent / 100 & ~1)
      let margin = (min(size.width, size.height) / 40) & ~1
      let left = corner == .topLeft || corner == .bottomLeft, top = corner == .topLeft || corner == .topRight
      let box = PixelRectangle(
        x: left ? margin : size.width - w - margin, y: top ? margin : size.height - h - margin, width: w, height: h)
      return ([(1 - inset, full), (inset, box)], [])
    }
  }

  /// The largest rectangle of `picture`'s aspect ratio inside `cell`, centred, with
  /// even corner and sides (at least 2×2): where a letterboxed picture goes.
  public static func letterbox(_ picture: FrameGeometry, in cell: PixelRectangle) -> PixelRectangle {
    func even(_ x: Double) -> Int { max(2, Int((x / 2).rounded()) * 2) }
    var w = cell.width, h = cell.height
    if picture.width * cell.height <= picture.height * cell.width {
      w = min(cell.width, even(Double(picture.width) * Double(cell.height) / Double(picture.height)))
    } else {
      h = min(cell.height, even(Double(picture.height) * Double(cell.width) / Double(picture.width)))
    }
    return PixelRectangle(x: cell.x + ((cell.width - w) / 2 & ~1), y: cell.y + ((cell.height - h) / 2 & ~1), width: w, height: h)
  }
}
