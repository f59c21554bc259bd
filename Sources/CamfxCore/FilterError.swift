/// A filter spec or option that cannot be used. `description` is the one-line message
/// the user sees; it always names the filter, and the key and value when there is one.
public struct FilterError: Error, CustomStringConvertible, Equatable {
  public var filter: String
  public var key: String?
  public var value: String?
  public var reason: String

  public init(filter: String, key: String? = nil, value: String? = nil, reason: String) {
    self.filter = filter
    self.key = key
    self.value = value
    self.reason = reason
  }

  public var description: String {
    var where_ = "filter '\(filter)'"
    if let key { where_ += ", key '\(key)'" }
    if let value { where_ += ", value '\(value)'" }
    return "\(where_): \(reason)"
  }
}
