import CCurl
import Foundation

/// MD5 through OpenSSL's EVP interface, fed in pieces: what S3 checks each body with
/// (`Content-MD5`) and names objects' ETags by.
final class MD5Digest {
  private let context: OpaquePointer

  init() {
    // EVP_MD_CTX_new fails only when memory is out.
    context = EVP_MD_CTX_new()!
    EVP_DigestInit_ex(context, EVP_md5(), nil)
  }

  deinit { EVP_MD_CTX_free(context) }

  func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    EVP_DigestUpdate(context, base, bytes.count)
  }

  /// The 16 bytes; the digest cannot be updated after.
  func finish() -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 16)
    var length: UInt32 = 0
    out.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
    return out
  }

  static func of(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    let digest = MD5Digest()
    digest.update(bytes)
    return digest.finish()
  }
}

extension Array where Element == UInt8 {
  var hex: String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(count * 2)
    for b in self {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  var base64: String { Data(self).base64EncodedString() }

  init?(hex: String) {
    let chars = Array(hex.utf8)
    guard chars.count % 2 == 0 else { return nil }
    func value(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    var out = [UInt8]()
    var i = 0
    while i < chars.count {
      guard let hi = value(chars[i]), let lo = value(chars[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    self = out
  }
}
