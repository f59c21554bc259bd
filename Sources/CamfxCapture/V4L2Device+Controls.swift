import CV4L2

extension V4L2Device {
  /// Every user-visible control, with its current value.
  /// The corresponding ioctls are `VIDIOC_QUERYCTRL` (with `V4L2_CTRL_FLAG_NEXT_CTRL`),
  /// `VIDIOC_QUERYMENU` and `VIDIOC_G_CTRL`.
  func queryControls() throws -> [CameraControl] {
    var controls: [CameraControl] = []
    var id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
    while true {
      var q = v4l2_queryctrl()
      q.id = id
      let status = ioctlStatus(CAMFX_VIDIOC_QUERYCTRL, &q)
      if status == EINVAL || status == ENOTTY { break }
      if status != 0 { throw V4L2Error(errno: status, operation: "VIDIOC_QUERYCTRL", device: path) }
      id = q.id | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
      if q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0 { continue }
      let kind: CameraControl.Kind
      switch q.type {
      case V4L2_CTRL_TYPE_INTEGER.rawValue: kind = .integer
      case V4L2_CTRL_TYPE_BOOLEAN.rawValue: kind = .boolean
      case V4L2_CTRL_TYPE_MENU.rawValue: kind = .menu
      case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: kind = .integerMenu
      case V4L2_CTRL_TYPE_BUTTON.rawValue: kind = .button
      case V4L2_CTRL_TYPE_INTEGER64.rawValue: kind = .integer64
      case V4L2_CTRL_TYPE_BITMASK.rawValue: kind = .bitmask
      case V4L2_CTRL_TYPE_STRING.rawValue: kind = .string
      case V4L2_CTRL_TYPE_CTRL_CLASS.rawValue: continue  // a heading, not a control
      default: kind = .other
      }
      let label = v4l2String(q.name)
      let writeOnly = q.flags & UInt32(V4L2_CTRL_FLAG_WRITE_ONLY) != 0
      var value: Int64?
      if [.integer, .boolean, .menu, .integerMenu, .bitmask].contains(kind) && !writeOnly {
        var c = v4l2_control()
        c.id = q.id
        if ioctlStatus(CAMFX_VIDIOC_G_CTRL, &c) == 0 { value = Int64(c.value) }
      }
      var menu: [CameraControl.MenuItem] = []
      if kind == .menu || kind == .integerMenu, q.minimum <= q.maximum, q.maximum - q.minimum < 256 {
        for index in q.minimum...q.maximum {
          var m = v4l2_querymenu()
          m.id = q.id
          m.index = UInt32(bitPattern: index)
          guard ioctlStatus(CAMFX_VIDIOC_QUERYMENU, &m) == 0 else { continue }
          let name = kind == .menu ? v4l2String(m.name) : String(m.value)
          menu.append(CameraControl.MenuItem(index: Int64(index), name: name))
        }
      }
      controls.append(
        CameraControl(
          id: q.id, name: CameraControl.normalizedName(label), label: label, kind: kind,
          minimum: Int64(q.minimum), maximum: Int64(q.maximum), step: Int64(q.step),
          defaultValue: Int64(q.default_value), value: value, menu: menu,
          isReadOnly: q.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0,
          isInactive: q.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0))
    }
    return controls
  }

  /// Sets controls by name, checking each against its range first.
  /// The corresponding ioctl is `VIDIOC_S_CTRL`.
  /// - Throws: `V4L2Error(.invalidArgument)` for an unknown name (listing the known
  ///   ones), a read-only control or a value out of range; the driver's error otherwise.
  package func setControls(_ assignments: [ControlAssignment]) throws {
    guard !assignments.isEmpty else { return }
    let controls = try queryControls()
    for assignment in assignments {
      guard let control = controls.first(where: { $0.name == assignment.name }) else {
        throw V4L2Error(
          .invalidArgument, operation: "VIDIOC_S_CTRL", device: path,
          detail: "has no control '\(assignment.name)'; it has: \(controls.map(\.name).joined(separator: ", "))")
      }
      guard !control.isReadOnly else {
        throw V4L2Error(.invalidArgument, operation: "VIDIOC_S_CTRL", device: path,
                        detail: "control '\(control.name)' is read-only")
      }
      switch control.kind {
      case .integer, .boolean, .menu, .integerMenu, .bitmask, .button: break
      default:
        throw V4L2Error(.invalidArgument, operation: "VIDIOC_S_CTRL", device: path,
                        detail: "control '\(control.name)' (\(control.kind.rawValue)) cannot be set with --control")
      }
      if control.kind != .button && control.kind != .bitmask
        && !(control.minimum...control.maximum).contains(assignment.value)
      {
        throw V4L2Error(.invalidArgument, operation: "VIDIOC_S_CTRL", device: path,
                        detail: "\(assignment) is out of range \(control.minimum)…\(control.maximum)")
      }
      if control.kind == .menu || control.kind == .integerMenu,
        !control.menu.contains(where: { $0.index == assignment.value })
      {
        throw V4L2Error(.invalidArgument, operation: "VIDIOC_S_CTRL", device: path,
                        detail: "\(assignment) is not one of: \(control.menu.map { "\($0.index) (\($0.name))" }.joined(separator: ", "))")
      }
      var c = v4l2_control()
      c.id = control.id
      c.value = Int32(truncatingIfNeeded: assignment.value)
      do {
        try ioctl(CAMFX_VIDIOC_S_CTRL, &c, "VIDIOC_S_CTRL")
      } catch var error as V4L2Error {
        if error.kind == .failed { error.detail = "setting \(assignment)" }
        throw error
      }
    }
  }
}
