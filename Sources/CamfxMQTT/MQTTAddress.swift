import Foundation

/// Where to publish: `mqtt://[user[:password]@]host[:port]/topic/prefix`.
///
///     let address = try MQTTAddress("mqtt://127.0.0.1:1883/camfx/door")
///     address.topic   // "camfx/door"; messages go to camfx/door/events, camfx/door/state ...
///
/// The port defaults to 1883. The topic prefix is required and may not hold the
/// wildcards `+` or `#` (they are for subscribers). The user name and password may be
/// percent-encoded (`%2F` for `/`), and never appear in a message. TLS (`mqtts://`) is
/// not supported.
public struct MQTTAddress: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var topic: String
  public var username: String?
  public var password: String?

  /// - Throws: `MQTTAddress.Invalid`, a one-line message that names what is wrong.
  public init(_ given: String) throws(Invalid) {
    // Messages quote the address without its password.
    let text = Self.redacted(given)
    guard let schemeEnd = text.range(of: "://") else {
      throw Invalid("'\(text)' is not an MQTT address: expected mqtt://host[:port]/topic")
    }
    let scheme = text[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "mqtt" else {
      if scheme == "mqtts" {
        throw Invalid("'\(text)': mqtts:// (TLS) is not supported; use mqtt:// to a broker on this host or network")
      }
      throw Invalid("'\(text)': the scheme must be mqtt://")
    }
    let rest = given[given.range(of: "://")!.upperBound...]
    guard let slash = rest.firstIndex(of: "/") else {
      throw Invalid("'\(text)' has no topic: add one after the host, as in mqtt://host:1883/camfx/door")
    }
    var authority = rest[..<slash]
    topic = String(rest[rest.index(after: slash)...])
    while topic.hasSuffix("/") { topic.removeLast() }
    guard !topic.isEmpty else {
      throw Invalid("'\(text)' has no topic: add one after the host, as in mqtt://host:1883/camfx/door")
    }
    guard !topic.contains("+"), !topic.contains("#") else {
      throw Invalid("'\(text)': the topic '\(topic)' may not hold the wildcards + or #")
    }
    if let at = authority.lastIndex(of: "@") {
      let credentials = authority[..<at]
      authority = authority[authority.index(after: at)...]
      let decode = { (part: Substring) throws(Invalid) -> String in
        guard let decoded = String(part).removingPercentEncoding else {
          throw Invalid("'\(text)': the user name or password has a bad %-escape")
        }
        return decoded
      }
      if let colon = credentials.firstIndex(of: ":") {
        username = try decode(credentials[..<colon])
        password = try decode(credentials[credentials.index(after: colon)...])
      } else {
        username = try decode(credentials)
      }
      guard username?.isEmpty == false else { throw Invalid("'\(text)': the user name before '@' is empty") }
    }
    port = 1883
    if authority.hasPrefix("[") {
      // An IPv6 literal: [::1]:1883.
      guard let close = authority.firstIndex(of: "]") else { throw Invalid("'\(text)': the IPv6 address has no ']'") }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw Invalid("'\(text)': expected ':port' after the IPv6 address") }
        port = try Self.port(after.dropFirst(), in: text)
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      port = try Self.port(authority[authority.index(after: colon)...], in: text)
    } else {
      host = String(authority)
    }
    guard !host.isEmpty else { throw Invalid("'\(text)' has no host") }
  }

  /// `text` with the password between `user:` and `@` replaced by `***`.
  static func redacted(_ text: String) -> String {
    guard let schemeEnd = text.range(of: "://") else { return text }
    let rest = text[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
    guard let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return text }
    return String(text[..<rest.index(after: colon)]) + "***" + String(text[at...])
  }

  private static func port(_ text: Substring, in address: String) throws(Invalid) -> Int {
    guard let port = Int(text), (1...65535).contains(port) else {
      throw Invalid("'\(address)': the port '\(text)' must be a number from 1 to 65535")
    }
    return port
  }

  /// The address without the password.
  public var description: String {
    let user = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "mqtt://\(user)\(shownHost):\(port)/\(topic)"
  }

  public struct Invalid: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
  }
}
