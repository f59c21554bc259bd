import Foundation
import XCTest

@testable import CamfxArchive

/// The archive's parts that need no store: destinations and keys, credentials files,
/// part sizes, S3's XML answers, the journal on the disk, MD5 against md5sum.
final class ArchivePartsTests: XCTestCase {
  func testDestinationsAreCheckedAndKeysMadeFromTheirPrefix() throws {
    let d = try ArchiveDestination(url: "s3://my-bucket/cams/%Y/", endpoint: "http://127.0.0.1:9000/", region: "eu-west-1")
    XCTAssertEqual(d.bucket, "my-bucket")
    XCTAssertEqual(d.prefix, "cams/%Y")
    XCTAssertEqual(d.bucketURL, "http://127.0.0.1:9000/my-bucket")
    var parts = tm()
    parts.tm_year = 2026 - 1900
    parts.tm_mon = 10
    parts.tm_mday = 28
    parts.tm_hour = 12
    parts.tm_isdst = -1
    let t = mktime(&parts)
    XCTAssertEqual(d.key(forName: "2026/seg 1+.mp4", at: t), "cams/2026/2026/seg 1+.mp4")
    XCTAssertEqual(d.objectURL(key: "cams/a b+c.mp4"), "http://127.0.0.1:9000/my-bucket/cams/a%20b%2Bc.mp4")
    XCTAssertEqual(try ArchiveDestination(url: "s3://bucket").key(forName: "a.mp4", at: t), "a.mp4")
    XCTAssertEqual(try ArchiveDestination(url: "s3://bucket", region: "us-west-2").bucketURL, "https://bucket.s3.us-west-2.amazonaws.com")
    let bad: [(String, String?, String)] = [
      ("http://bucket/x", nil, "expected s3://BUCKET/PREFIX"),
      ("s3://Bucket/x", nil, "is not a bucket name"),
      ("s3://ab/x", nil, "is not a bucket name"),
      ("s3://bucket/a//b", nil, "empty, '.' or '..' part"),
      ("s3://bucket/a/../b", nil, "empty, '.' or '..' part"),
      ("s3://bucket/x", "ftp://host", "--archive-endpoint 'ftp://host'"),
    ]
    for (url, endpoint, message) in bad {
      XCTAssertThrowsError(try ArchiveDestination(url: url, endpoint: endpoint)) { error in
        XCTAssertTrue("\(error)".contains(message), "\(url): \(error)")
      }
    }
  }

  func testCredentialsComeFromTheEnvironmentOrAProfile() throws {
    let env = try ArchiveCredentials.find(environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": "T"])
    XCTAssertEqual(env, ArchiveCredentials(accessKey: "A", secretKey: "S", sessionToken: "T", origin: "the environment"))
    XCTAssertThrowsError(try ArchiveCredentials.find(environment: ["AWS_ACCESS_KEY_ID": "A"]))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-credentials-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("credentials").path
    try "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n# a comment\n[box]\naws_access_key_id=B\naws_secret_access_key = BS\n"
      .write(toFile: file, atomically: true, encoding: .utf8)
    let profile = try ArchiveCredentials.find(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "box"])
    XCTAssertEqual(profile.accessKey, "B")
    XCTAssertEqual(profile.secretKey, "BS")
    XCTAssertEqual(try ArchiveCredentials.find(environment: ["AWS_SHARED_CREDENTIALS_FILE": file]).accessKey, "D")
    XCTAssertThrowsError(try ArchiveCredentials.find(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "none"])) {
      XCTAssertTrue("\($0)".contains("profile 'none'"), "\($0)")
    }
    XCTAssertThrowsError(try ArchiveCredentials.find(environment: ["HOME": folder.path])) {
      XCTAssertTrue("\($0)".hasPrefix("no credentials for the archive"), "\($0)")
    }
  }

  /// S3 takes at most 10,000 parts of at most 5 GiB: a 4 GB file, a day of 4K, 1 TB.
  func testPartsFitS3sLimitsAtEverySize() {
    let smallest: Int64 = 8 << 20
    for size: Int64 in [16 << 20, 4_000_000_000, 4 << 30, 80_000_000_000, 1_000_000_000_000] {
      let part = S3Archive.partSize(for: size, smallest: smallest)
      XCTAssertGreaterThanOrEqual(part, smallest)
      XCTAssertEqual(part % (1 << 20), 0)
      XCTAssertLessThanOrEqual((size + part - 1) / part, 10_000, "\(size)")
      XCTAssertLessThanOrEqual(part, 5 << 30)
    }
    XCTAssertEqual(S3Archive.partSize(for: 4_000_000_000, smallest: smallest), smallest)
  }

  func testS3AnswersAreRead() {
    let body = Array("""
      <?xml version="1.0" encoding="UTF-8"?>
      <ListPartsResult><Bucket>b</Bucket><UploadId>abc&amp;1</UploadId>
      <Part><PartNumber>1</PartNumber><ETag>&quot;0a1b&quot;</ETag><Size>5</Size></Part>
      <Part><PartNumber>2</PartNumber><ETag>"2c3d"</ETag><Size>3</Size></Part>
      <IsTruncated>false</IsTruncated></ListPartsResult>
      """.utf8)
    XCTAssertEqual(S3XML.values("UploadId", in: body), ["abc&1"])
    let parts = S3XML.blocks("Part", in: body)
    XCTAssertEqual(parts.count, 2)
    XCTAssertEqual(S3XML.values("ETag", in: parts[0]), ["\"0a1b\""])
    XCTAssertEqual(S3XML.values("Size", in: parts[1]), ["3"])
    XCTAssertEqual(S3XML.values("Missing", in: body), [])
  }

  func testTheJournalSurvivesARoundTripAndKeepsWaitingFilesToTheirStore() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-journal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var journal = try ArchiveJournal.load(folder: folder.path, destination: "s3://a/p")
    XCTAssertEqual(journal.entries, [])
    journal.entries = [
      .init(
        path: "/x/seg-000.mp4", key: "p/seg-000.mp4", size: 100, added: 1, archived: false,
        upload: .init(id: "u1", partSize: 8 << 20, parts: [.init(number: 1, etag: "e", md5: "00")])),
      .init(path: "/x/seg-001.mp4", key: "p/seg-001.mp4", size: 50, added: 2, archived: true, upload: nil),
    ]
    try journal.save(folder: folder.path)
    XCTAssertEqual(try ArchiveJournal.load(folder: folder.path, destination: "s3://a/p"), journal)
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/.camfx-archive.json.tmp"))
    XCTAssertThrowsError(try ArchiveJournal.load(folder: folder.path, destination: "s3://other/p")) {
      XCTAssertTrue("\($0)".contains("lists files waiting for s3://a/p"), "\($0)")
    }
    try Data("{not json".utf8).write(to: folder.appendingPathComponent(".camfx-archive.json"))
    XCTAssertThrowsError(try ArchiveJournal.load(folder: folder.path, destination: "s3://a/p"))
  }

  func testMD5MatchesMd5sum() throws {
    let bytes = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-md5-\(UUID().uuidString)")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
    process.arguments = [file.path]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let expected = String(decoding: out.fileHandleForReading.readDataToEndOfFile().prefix(32), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(bytes.withUnsafeBytes { MD5Digest.of($0) }.hex, expected)
    let pieces = MD5Digest()
    bytes.withUnsafeBytes { all in
      pieces.update(UnsafeRawBufferPointer(rebasing: all[..<7]))
      pieces.update(UnsafeRawBufferPointer(rebasing: all[7...]))
    }
    XCTAssertEqual(pieces.finish().hex, expected)
    XCTAssertEqual([UInt8](hex: expected)?.hex, expected)
    XCTAssertEqual([UInt8]([0xd4, 0x1d]).base64, "1B0=")
  }
}
