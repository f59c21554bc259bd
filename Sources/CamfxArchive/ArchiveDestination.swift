import Camfx
import Foundation

/// Where archived files go: `s3://BUCKET/PREFIX` on AWS S3 or, with an endpoint, on any
/// S3-compatible store (MinIO, Garage, Ceph RGW, Backblaze B2, `rclone serve s3`),
/// addressed path-style there.
///
/// `PREFIX` may hold strftime fields (`cams/%Y/%m/%d`), filled in with the local time
/// a file is handed over; a file's key is the prefix, a slash, and its name relative
/// to the archive's folder.
public struct ArchiveDestination: Sendable, Equatable {
  public let bucket: String
  public let prefix: String
  /// `https://host:port` of a store that is not AWS; nil for AWS itself.
  public let endpoint: String?
  public let region: String
  /// What was given, for messages: `s3://bucket/prefix`.
  public var url: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

  /// - Parameters:
  ///   - url: `s3://BUCKET` or `s3://BUCKET/PREFIX`.
  ///   - endpoint: `http(s)://host[:port]` of the store, if not AWS.
  ///   - region: the store's region (AWS's default `us-east-1`).
  public init(url: String, endpoint: String? = nil, region: String = "us-east-1") throws(ArchiveError) {
    guard url.hasPrefix("s3://") else {
      throw ArchiveError("--archive '\(url)': expected s3://BUCKET/PREFIX")
    }
    let rest = url.dropFirst(5)
    let bucket = String(rest.prefix { $0 != "/" })
    // S3's rules for bucket names: 3 to 63 of lowercase letters, digits, dots, hyphens.
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
    guard (3...63).contains(bucket.count), bucket.allSatisfy(allowed.contains), bucket.first != "-", bucket.first != "." else {
      throw ArchiveError("--archive '\(url)': '\(bucket)' is not a bucket name (3 to 63 lowercase letters, digits, dots, hyphens)")
    }
    var prefix = String(rest.dropFirst(bucket.count))
    while prefix.hasPrefix("/") { prefix.removeFirst() }
    while prefix.hasSuffix("/") { prefix.removeLast() }
    if !prefix.isEmpty, prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
      throw ArchiveError("--archive '\(url)': the prefix has an empty, '.' or '..' part")
    }
    if let endpoint {
      guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"),
        let host = URL(string: endpoint)?.host, !host.isEmpty
      else {
        throw ArchiveError("--archive-endpoint '\(endpoint)': expected http(s)://HOST[:PORT]")
      }
    }
    guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
      throw ArchiveError("--archive-region '\(region)': expected a region name such as us-east-1")
    }
    self.bucket = bucket
    self.prefix = prefix
    self.endpoint = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    self.region = region
  }

  /// The region when none is given: `AWS_REGION`, `AWS_DEFAULT_REGION`, else us-east-1.
  public static func defaultRegion(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
  }

  /// The bucket's URL: path-style on an endpoint, virtual-hosted on AWS.
  var bucketURL: String {
    if let endpoint { return "\(endpoint)/\(bucket)" }
    return "https://\(bucket).s3.\(region).amazonaws.com"
  }

  func objectURL(key: String) -> String { bucketURL + "/" + Self.encodePath(key) }

  /// The prefix with its strftime fields filled in for `time` (local time), as `-o`'s.
  func expandedPrefix(at time: time_t) -> String { NamePattern.expand(prefix, at: time) }

  /// The key of a file named `name` (relative to the archive's folder) handed over at `time`.
  func key(forName name: String, at time: time_t) -> String {
    let p = expandedPrefix(at: time)
    return p.isEmpty ? name : p + "/" + name
  }

  /// URI-encodes each character but the unreserved ones (and `/` in a path), as
  /// Signature V4's canonical request spells a path and a query.
  static func encode(_ s: String, keepSlash: Bool = false) -> String {
    var out = ""
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: "/") where keepSlash:
        out.append("/")
      default:
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return out
  }

  static func encodePath(_ key: String) -> String { encode(key, keepSlash: true) }
}

extension String {
  fileprivate func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
