/// A mosaic layout that cannot be used. `description` is the one line the user sees,
/// in the shape of `FilterError`'s: it names the layout text, then the key and value
/// when there is one, then what is wrong.
///
///     layout 'pip=cam3', camera 'cam3': no such camera (cameras: cam1, cam2)
///     layout 'pip=cam2:corner=middle', key 'corner', value 'middle': expected one of tl, tr, bl, br
public struct MosaicError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The layout text as given.
  public var layout: String
  /// What the problem is about: `key 'corner'`, `camera 'cam3'` (nil: the whole text).
  public var subject: String?
  public var value: String?
  public var reason: String

  public init(layout: String, subject: String? = nil, value: String? = nil, reason: String) {
    self.layout = layout
    self.subject = subject
    self.value = value
    self.reason = reason
  }

  public var description: String {
    var where_ = "layout '\(layout)'"
    if let subject { where_ += ", \(subject)" }
    if let value { where_ += ", value '\(value)'" }
    return "\(where_): \(reason)"
  }
}
