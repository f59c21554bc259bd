/// One camera control (`VIDIOC_QUERYCTRL`): brightness, contrast, horizontal flip, …
/// with its type, range, default and current value, as `camfx controls` lists it.
public struct CameraControl: Sendable, Hashable {
  public enum Kind: String, Sendable {
    case integer, boolean, menu, button, integer64, bitmask, integerMenu = "intmenu", string, other
  }

  /// One entry of a menu control.
  public struct MenuItem: Sendable, Hashable {
    public var index: Int64
    public var name: String
  }

  /// The V4L2 control id (`V4L2_CID_*`).
  public var id: UInt32
  /// The name `--control` takes: the driver's label lowercased with `_` for spaces and
  /// punctuation (`Horizontal Flip` → `horizontal_flip`), as `v4l2-ctl` names them.
  public var name: String
  /// The driver's label, e.g. `Horizontal Flip`.
  public var label: String
  public var kind: Kind
  public var minimum: Int64
  public var maximum: Int64
  public var step: Int64
  public var defaultValue: Int64
  /// The current value, when it can be read as one integer.
  public var value: Int64?
  public var menu: [MenuItem]
  public var isReadOnly: Bool
  public var isInactive: Bool

  /// The `--control` spelling of a driver's label or a user's input.
  public static func normalizedName(_ label: String) -> String {
    var out = ""
    var pendingUnderscore = false
    for scalar in label.lowercased().unicodeScalars {
      if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
        if pendingUnderscore && !out.isEmpty { out.append("_") }
        pendingUnderscore = false
        out.unicodeScalars.append(scalar)
      } else {
        pendingUnderscore = true
      }
    }
    return out
  }

  /// `0…255 step 1`, `bool`, `menu 0…3`, `button`.
  public var rangeDescription: String {
    switch kind {
    case .boolean: return "bool"
    case .button: return "button"
    case .string: return "string"
    case .menu, .integerMenu: return "\(minimum)…\(maximum)"
    default: return step > 1 ? "\(minimum)…\(maximum) step \(step)" : "\(minimum)…\(maximum)"
    }
  }
}
