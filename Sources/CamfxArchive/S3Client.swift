import CCurl
import Foundation

/// What a store answered that was not a success, or why no answer came.
struct S3Failure: Error, CustomStringConvertible, Sendable {
  enum Kind: Sendable {
    /// No HTTP answer: refused, reset, timed out, a name that does not resolve.
    case transport
    /// An HTTP status of 300 or more, with S3's error code when the body had one.
    case status(Int, code: String?)
  }
  let kind: Kind
  let message: String

  var description: String { message }

  var status: Int? { if case .status(let s, _) = kind { s } else { nil } }
  var code: String? { if case .status(_, let c) = kind { c } else { nil } }

  /// True for an answer that says the request itself is refused, which waiting does
  /// not mend (403 wrong key, 404 no bucket); it is still retried, more slowly.
  var isRefusal: Bool {
    guard let status else { return false }
    return (400..<500).contains(status) && status != 408 && status != 429 && code != "RequestTimeTooSkewed"
  }
}

/// A stretch of a file a request sends as its body, read as it goes (`pread`), so
/// that no body is held in memory whole.
struct FileRange {
  var fd: Int32
  var offset: Int64
  var count: Int64
}

/// One answer from the store.
struct S3Response {
  var status: Int
  /// Header names in lower case.
  var headers: [String: String]
  var body: [UInt8]
}

/// The S3 requests the archive makes (HEAD a bucket, PUT an object, the multipart
/// upload's five), each signed by libcurl's AWS Signature V4 (`CURLOPT_AWS_SIGV4`).
/// Bodies go unsigned (`UNSIGNED-PAYLOAD`) but every one carries its `Content-MD5`,
/// which the store checks before it keeps a byte.
///
/// One curl handle, reused, so that requests share a kept-alive connection. Not
/// thread-safe: the archive's uploader is its only user.
final class S3Client {
  let destination: ArchiveDestination
  private let credentials: ArchiveCredentials
  private let curl: UnsafeMutableRawPointer
  /// Seconds without a byte moving before a request counts as failed.
  var stallSeconds = 30
  /// Asked while a request runs: true cuts it off (the archive's end came).
  var isCancelled: @Sendable () -> Bool = { false }

  init(destination: ArchiveDestination, credentials: ArchiveCredentials) {
    Self.initializeOnce
    self.destination = destination
    self.credentials = credentials
    curl = curl_easy_init()
  }

  deinit { curl_easy_cleanup(curl) }

  private static let initializeOnce: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

  // MARK: Requests

  /// A signed `HEAD` of the bucket: wrong keys, a missing bucket and a skewed clock
  /// show here, before a byte is recorded.
  func headBucket() throws(S3Failure) {
    _ = try send("HEAD", key: nil)
  }

  /// The object's size and ETag (quotes taken off), or nil when there is none.
  func headObject(key: String) throws(S3Failure) -> (size: Int64, etag: String)? {
    do {
      let r = try send("HEAD", key: key)
      let size = Int64(r.headers["content-length"] ?? "") ?? -1
      return (size, Self.unquoted(r.headers["etag"] ?? ""))
    } catch {
      guard error.status == 404 else { throw error }
      return nil
    }
  }

  /// Puts `body` as the object `key`, checked by its MD5; returns the ETag.
  func putObject(key: String, body: FileRange, md5: [UInt8]) throws(S3Failure) -> String {
    let r = try send("PUT", key: key, headers: ["Content-MD5: \(md5.base64)"], upload: body)
    return Self.unquoted(r.headers["etag"] ?? "")
  }

  func createMultipartUpload(key: String) throws(S3Failure) -> String {
    let r = try send("POST", key: key, query: [("uploads", "")], post: [])
    guard let id = S3XML.values("UploadId", in: r.body).first, !id.isEmpty else {
      throw S3Failure(kind: .status(r.status, code: nil), message: "the store's answer to starting a multipart upload has no UploadId")
    }
    return id
  }

  func uploadPart(key: String, uploadID: String, number: Int, body: FileRange, md5: [UInt8]) throws(S3Failure) -> String {
    let r = try send(
      "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
      headers: ["Content-MD5: \(md5.base64)"], upload: body)
    return Self.unquoted(r.headers["etag"] ?? "")
  }

  /// The parts the store holds for an upload: number, ETag, size. 404 (`NoSuchUpload`)
  /// when the upload is gone.
  func listParts(key: String, uploadID: String) throws(S3Failure) -> [(number: Int, etag: String, size: Int64)] {
    var parts: [(Int, String, Int64)] = []
    var marker: String? = nil
    while true {
      var query = [("max-parts", "1000")]
      if let marker { query.append(("part-number-marker", marker)) }
      query.append(("uploadId", uploadID))
      let r = try send("GET", key: key, query: query)
      for block in S3XML.blocks("Part", in: r.body) {
        guard let n = Int(S3XML.values("PartNumber", in: block).first ?? ""), let size = Int64(S3XML.values("Size", in: block).first ?? "")
        else { continue }
        parts.append((n, Self.unquoted(S3XML.values("ETag", in: block).first ?? ""), size))
      }
      guard S3XML.values("IsTruncated", in: r.body).first == "true", let next = S3XML.values("NextPartNumberMarker", in: r.body).first
      else { break }
      marker = next
    }
    return parts
  }

  func completeMultipartUpload(key: String, uploadID: String, parts: [(number: Int, etag: String)]) throws(S3Failure) -> String {
    var xml = "<CompleteMultipartUpload>"
    for part in parts { xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\"\(part.etag)\"</ETag></Part>" }
    xml += "</CompleteMultipartUpload>"
    let r = try send("POST", key: key, query: [("uploadId", uploadID)], post: Array(xml.utf8))
    // S3 may answer 200 with an error in the body when the completion fails late.
    if let code = S3XML.values("Code", in: r.body).first, S3XML.blocks("Error", in: r.body).count > 0 {
      throw S3Failure(kind: .status(500, code: code), message: "completing the upload: \(code)")
    }
    return Self.unquoted(S3XML.values("ETag", in: r.body).first ?? "")
  }

  func abortMultipartUpload(key: String, uploadID: String) throws(S3Failure) {
    do {
      _ = try send("DELETE", key: key, query: [("uploadId", uploadID)])
    } catch {
      // A 404 says it is gone already.
      guard error.status == 404 else { throw error }
    }
  }

  /// The multipart uploads in progress under `prefix`: key and upload ID.
  func listMultipartUploads(prefix: String) throws(S3Failure) -> [(key: String, uploadID: String)] {
    let r: S3Response
    do {
      r = try send("GET", key: nil, query: [("prefix", prefix), ("uploads", "")])
    } catch {
      // Some stores (rclone's) answer NoSuchUpload when there is none.
      guard error.code == "NoSuchUpload" else { throw error }
      return []
    }
    return S3XML.blocks("Upload", in: r.body).compactMap { block in
      guard let key = S3XML.values("Key", in: block).first, let id = S3XML.values("UploadId", in: block).first else { return nil }
      return (key, id)
    }
  }

  // MARK: Sending

  private static func unquoted(_ s: String) -> String {
    var t = s.trimmingCharacters(in: .whitespaces)
    if t.hasPrefix("\"") { t.removeFirst() }
    if t.hasSuffix("\"") { t.removeLast() }
    return t
  }

  /// What the callbacks read from and write to during one request.
  private final class Exchange {
    var isCancelled: @Sendable () -> Bool = { false }
    var upload = FileRange(fd: -1, offset: 0, count: 0)
    var uploaded: Int64 = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
  }

  /// Sends one signed request. The query is given in Signature V4's canonical order
  /// (sorted by name, every name with its `=`), which is also how it goes on the wire:
  /// libcurl signs the query as written.
  private func send(
    _ method: String, key: String?, query: [(String, String)] = [], headers extra: [String] = [],
    upload: FileRange? = nil, post: [UInt8]? = nil
  ) throws(S3Failure) -> S3Response {
    var url = key.map { destination.objectURL(key: $0) } ?? destination.bucketURL + "/"
    if !query.isEmpty {
      url += "?" + query.sorted { $0.0 < $1.0 }.map { ArchiveDestination.encode($0.0) + "=" + ArchiveDestination.encode($0.1) }
        .joined(separator: "&")
    }
    curl_easy_reset(curl)
    let exchange = Exchange()
    exchange.isCancelled = isCancelled
    let context = Unmanaged.passUnretained(exchange).toOpaque()
    var headers: UnsafeMutablePointer<curl_slist>? = nil
    defer { curl_slist_free_all(headers) }
    var lines = ["x-amz-content-sha256: UNSIGNED-PAYLOAD"] + extra
    if let token = credentials.sessionToken { lines.append("x-amz-security-token: \(token)") }
    for line in lines { headers = curl_slist_append(headers, line) }
    var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
      camfx_curl_set_string(curl, CURLOPT_URL, url)
      camfx_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
      camfx_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
      camfx_curl_set_string(curl, CURLOPT_AWS_SIGV4, "aws:amz:\(destination.region):s3")
      camfx_curl_set_string(curl, CURLOPT_USERNAME, credentials.accessKey)
      camfx_curl_set_string(curl, CURLOPT_PASSWORD, credentials.secretKey)
      camfx_curl_set_list(curl, CURLOPT_HTTPHEADER, headers)
      camfx_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, 10)
      // A store that stops moving bytes for this long counts as down.
      camfx_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
      camfx_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, stallSeconds)
      camfx_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
      camfx_curl_set_data_callback(curl, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
        let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
        let n = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: n), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
          exchange.headers = [:]  // a 100 Continue's, or a redirect's
        } else if let colon = line.firstIndex(of: ":") {
          exchange.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return n
      }
      camfx_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
      camfx_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context)
      camfx_curl_set_progress_callback(curl) { context, _, _, _, _ in
        Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().isCancelled() ? 1 : 0
      }
      camfx_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
      camfx_curl_set_data_callback(curl, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
        let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
        let n = size * count
        // Answers are small XML documents; a store that sends more is cut off here.
        if exchange.body.count < 4 << 20 { exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: n)) }
        return n
      }
      switch method {
      case "HEAD":
        camfx_curl_set_long(curl, CURLOPT_NOBODY, 1)
      case "PUT":
        exchange.upload = upload ?? FileRange(fd: -1, offset: 0, count: 0)
        camfx_curl_set_long(curl, CURLOPT_UPLOAD, 1)
        camfx_curl_set_offset(curl, CURLOPT_INFILESIZE_LARGE, curl_off_t(exchange.upload.count))
        camfx_curl_set_pointer(curl, CURLOPT_READDATA, context)
        camfx_curl_set_data_callback(curl, CURLOPT_READFUNCTION) { buffer, size, count, context in
          let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
          let wanted = min(Int64(size * count), exchange.upload.count - exchange.uploaded)
          guard wanted > 0 else { return 0 }
          while true {
            let n = pread(exchange.upload.fd, buffer, Int(wanted), off_t(exchange.upload.offset + exchange.uploaded))
            if n < 0 && errno == EINTR { continue }
            // A file that shrank or cannot be read ends the request (CURL_READFUNC_ABORT).
            guard n > 0 else { return 0x1000_0000 }
            exchange.uploaded += Int64(n)
            return n
          }
        }
      case "POST":
        let body = post ?? []
        camfx_curl_set_long(curl, CURLOPT_POST, 1)
        camfx_curl_set_offset(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        body.withUnsafeBufferPointer { _ = camfx_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafePointer(bitPattern: 1)!)) }
      default:
        camfx_curl_set_string(curl, CURLOPT_CUSTOMREQUEST, method)
      }
      return curl_easy_perform(curl)
    }
    guard code == CURLE_OK else {
      let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
      throw S3Failure(kind: .transport, message: message)
    }
    let status = camfx_curl_response_code(curl)
    let response = S3Response(status: status, headers: exchange.headers, body: exchange.body)
    guard (200..<300).contains(status) else {
      let code = S3XML.values("Code", in: exchange.body).first
      let text = S3XML.values("Message", in: exchange.body).first
      throw S3Failure(kind: .status(status, code: code), message: Self.explain(status: status, code: code, message: text, method: method))
    }
    return response
  }

  /// One line for an error answer, in words a user can act on.
  private static func explain(status: Int, code: String?, message: String?, method: String) -> String {
    let said = [code, message.flatMap { $0 == code ? nil : $0 }].compactMap { $0 }.joined(separator: ": ")
    let hint: String? =
      switch (status, code) {
      case (_, "SignatureDoesNotMatch"), (_, "InvalidAccessKeyId"): "the access key or secret key is wrong"
      case (_, "NoSuchBucket"): "no such bucket"
      case (_, "RequestTimeTooSkewed"): "this machine's clock is too far from the store's"
      case (_, "AccessDenied"), (403, nil): "access denied: the key is wrong or lacks permission"
      case (404, nil) where method == "HEAD": "not found"
      case (500..<600, _): "the store failed"
      default: nil
      }
    return "HTTP \(status)" + (hint.map { " (\($0))" } ?? "") + (said.isEmpty ? "" : ": \(said)")
  }
}

/// Reads the few values the archive needs out of S3's XML answers: every
/// `<Name>value</Name>` (no attributes in S3's answers), entities decoded.
enum S3XML {
  static func values(_ name: String, in body: [UInt8]) -> [String] {
    blocks(name, in: body).map { decode(String(decoding: $0, as: UTF8.self)) }
  }

  /// The contents of every `<name>` element, outermost first.
  static func blocks(_ name: String, in body: [UInt8]) -> [[UInt8]] {
    let open = Array("<\(name)>".utf8), close = Array("</\(name)>".utf8)
    var out: [[UInt8]] = []
    var i = 0
    while let start = find(open, in: body, from: i) {
      let contentStart = start + open.count
      guard let end = find(close, in: body, from: contentStart) else { break }
      out.append(Array(body[contentStart..<end]))
      i = end + close.count
    }
    return out
  }

  private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
    guard needle.count <= hay.count else { return nil }
    var i = from
    while i + needle.count <= hay.count {
      if hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }

  private static func decode(_ s: String) -> String {
    guard s.contains("&") else { return s }
    return s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
      .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
  }
}
