import NIOHTTP1

/// What a request's path asks the preview server for (see `PreviewServer` for the
/// paths): the list of cameras, or a resource of the camera the path names or, on a
/// one-camera path, of no camera in particular.
///
///     /cameras                         .cameraList
///     /snapshot.png                    .resource(.snapshot(.png), camera: nil)
///     /cameras/front/snapshot.png      .resource(.snapshot(.png), camera: "front")
///     /cameras/front/                  .resource(.page, camera: "front")
///     /live/ws                         .resource(.liveSocket, camera: nil)
enum PreviewRequestPath: Equatable {
  enum Resource: Equatable {
    case page, state, stream, event, eventStop
    /// `live`: the page, playing the live view (or saying why it cannot).
    case livePage
    /// `live/ws`: the live view's WebSocket.
    case liveSocket
    /// `events`: the newest event clips, as JSON.
    case events
    /// `events/NAME.png`: the picture of the event clip NAME.
    case eventPicture(String)
    case snapshot(PreviewTap.SnapshotFormat)

    /// True for what only a POST asks for.
    var isPost: Bool { self == .event || self == .eventStop }
  }

  case cameraList
  /// `/metrics`: every camera's figures, for Prometheus.
  case metrics
  /// `camera`: the name in `/cameras/NAME/...`, as the path spells it; nil on a
  /// one-camera path.
  case resource(Resource, camera: Substring?)

  /// Nil for a path the server does not serve (404).
  init?(_ path: String) {
    if path == "/cameras" {
      self = .cameraList
    } else if path == "/metrics" {
      self = .metrics
    } else if path.hasPrefix("/cameras/") {
      let rest = path.dropFirst("/cameras/".count)
      let name = rest.prefix { $0 != "/" }
      guard !name.isEmpty, let resource = Self.resource(rest.dropFirst(name.count).dropFirst()) else { return nil }
      self = .resource(resource, camera: name)
    } else {
      guard let resource = Self.resource(path.dropFirst()) else { return nil }
      self = .resource(resource, camera: nil)
    }
  }

  /// True when `method` may ask for this.
  func allows(_ method: HTTPMethod) -> Bool {
    switch self {
    case .cameraList, .metrics: return method == .GET || method == .HEAD
    case .resource(let resource, _): return resource.isPost ? method == .POST : method == .GET || method == .HEAD
    }
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
    case "live": return .livePage
    case "live/ws": return .liveSocket
    case "events": return .events
    case let name where name.hasPrefix("events/") && name.hasSuffix(".png"):
      let clip = name.dropFirst("events/".count).dropLast(".png".count)
      // A clip's own name, never a path.
      guard !clip.isEmpty, !clip.contains("/"), !clip.hasPrefix(".") else { return nil }
      return .eventPicture(String(clip))
    default: return nil
    }
  }
}
