/// What a request's path asks the preview server for (see `PreviewServer` for the
/// paths): a resource, of the camera it names or, on a one-camera path, of no camera
/// in particular.
///
///     /snapshot.png                    camera nil,       .snapshot(.png)
///     /cameras/front/snapshot.png      camera "front",   .snapshot(.png)
///     /cameras/front/                  camera "front",   .page
///     /cameras                         camera nil,       .cameraList
struct PreviewRequestPath: Equatable {
  enum Resource: Equatable {
    case page, cameraList, state, stream, event, eventStop
    case snapshot(PreviewTap.SnapshotFormat)

    /// True for what only a POST asks for.
    var isPost: Bool { self == .event || self == .eventStop }
  }

  /// The name in `/cameras/NAME/...`, as the path spells it; nil on a one-camera path.
  var camera: Substring?
  var resource: Resource

  /// Nil for a path the server does not serve (404).
  init?(_ path: String) {
    if path == "/cameras" {
      camera = nil
      resource = .cameraList
      return
    }
    guard path.hasPrefix("/cameras/") else {
      guard let resource = Self.resource(path.dropFirst()) else { return nil }
      camera = nil
      self.resource = resource
      return
    }
    let rest = path.dropFirst("/cameras/".count)
    let name = rest.prefix { $0 != "/" }
    guard !name.isEmpty, let resource = Self.resource(rest.dropFirst(name.count).dropFirst()) else { return nil }
    camera = name
    self.resource = resource
  }

  /// The resource a path names after its camera's part (`snapshot.png`; empty: the page).
  private static func resource(_ name: Substring) -> Resource? {
    switch name {
    case "": return .page
    case "state": return .state
    case "stream.mjpeg": return .stream
    case "snapshot.jpg": return .snapshot(.jpeg)
    case "snapshot.png": return .snapshot(.png)
    case "event": return .event
    case "event/stop": return .eventStop
    default: return nil
    }
  }
}
