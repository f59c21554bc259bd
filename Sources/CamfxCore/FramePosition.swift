/// Where a mark or a text goes in a frame when no explicit corner is given: a corner,
/// `margin` pixels from its two edges, or the centre.
public enum FramePosition: String, Sendable, CaseIterable {
  case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
  case center

  /// The top-left corner of something of `size` placed this way in `frame` (it may lie
  /// partly or wholly outside the frame when it is larger).
  public func origin(of size: FrameGeometry, in frame: FrameGeometry, margin: Int) -> (x: Int, y: Int) {
    let w = size.width, h = size.height
    switch self {
    case .topLeft: return (margin, margin)
    case .topRight: return (frame.width - w - margin, margin)
    case .bottomLeft: return (margin, frame.height - h - margin)
    case .bottomRight: return (frame.width - w - margin, frame.height - h - margin)
    case .center: return ((frame.width - w) / 2, (frame.height - h) / 2)
    }
  }
}
