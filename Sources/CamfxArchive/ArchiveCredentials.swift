import Foundation

/// The keys requests are signed with, from where AWS's own tools read them: the
/// environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`),
/// else the profile `AWS_PROFILE` (or `default`) of `~/.aws/credentials`
/// (`AWS_SHARED_CREDENTIALS_FILE`). Never from the command line, where `ps` shows them.
public struct ArchiveCredentials: Sendable, Equatable {
  public let accessKey: String
  public let secretKey: String
  public let sessionToken: String?
  /// Where they came from, for messages (never the keys themselves).
  public let origin: String

  public init(accessKey: String, secretKey: String, sessionToken: String? = nil, origin: String) {
    self.accessKey = accessKey
    self.secretKey = secretKey
    self.sessionToken = sessionToken
    self.origin = origin
  }

  /// - Throws: `ArchiveError` naming where it looked.
  public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ArchiveError) -> Self {
    let nonEmpty = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    if let key = nonEmpty("AWS_ACCESS_KEY_ID") {
      guard let secret = nonEmpty("AWS_SECRET_ACCESS_KEY") else {
        throw ArchiveError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
      }
      return Self(accessKey: key, secretKey: secret, sessionToken: nonEmpty("AWS_SESSION_TOKEN"), origin: "the environment")
    }
    let home = nonEmpty("HOME") ?? NSHomeDirectory()
    let file = nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
    let profile = nonEmpty("AWS_PROFILE") ?? "default"
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
      throw ArchiveError(
        "no credentials for the archive: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with \(file)")
    }
    let values = profileValues(text, profile: profile)
    guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
      throw ArchiveError("\(file): profile '\(profile)' has no aws_access_key_id and aws_secret_access_key")
    }
    return Self(accessKey: key, secretKey: secret, sessionToken: values["aws_session_token"], origin: "\(file) [\(profile)]")
  }

  /// The `key = value` lines of `[profile]` in an INI file.
  static func profileValues(_ text: String, profile: String) -> [String: String] {
    var values: [String: String] = [:]
    var inProfile = false
    for raw in text.split(whereSeparator: \.isNewline) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("[") && line.hasSuffix("]") {
        inProfile = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == profile
        continue
      }
      guard inProfile, let eq = line.firstIndex(of: "=") else { continue }
      let name = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
      values[name] = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
    }
    return values
  }
}
