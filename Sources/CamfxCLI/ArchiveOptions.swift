import ArgumentParser
import Camfx
import CamfxArchive
import Foundation

/// `--archive s3://BUCKET/PREFIX` and its settings: every file the recording finishes
/// goes to S3-compatible object storage (`S3Archive`).
struct ArchiveOptions: ParsableArguments {
  @Option(help: ArgumentHelp(
    "Upload every finished file (movie, segment, event clip with its sidecar and picture) to S3-compatible storage: "
      + "s3://BUCKET/PREFIX (strftime fields such as %Y/%m/%d allowed in PREFIX). Keys come from AWS_ACCESS_KEY_ID/"
      + "AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN) or AWS_PROFILE in ~/.aws/credentials, never the command line.",
    valueName: "s3://bucket/prefix"))
  var archive: String?

  @Option(name: .customLong("archive-endpoint"), help: ArgumentHelp(
    "The store's URL when it is not AWS (MinIO, Garage, Ceph, B2, rclone serve s3): http(s)://HOST:PORT, addressed path-style.",
    valueName: "url"))
  var endpoint: String?

  @Option(name: .customLong("archive-region"), help: ArgumentHelp(
    "The store's region (default AWS_REGION, else us-east-1).", valueName: "name"))
  var region: String?

  @Flag(name: .customLong("archive-lazy"), help: ArgumentHelp(
    "Record although the store cannot be reached at the start (files wait in the journal); without it a wrong key, "
      + "a missing bucket or an unreachable store is refused before recording."))
  var lazy = false

  @Option(name: .customLong("archive-keep-local"), parsing: .unconditional, help: ArgumentHelp(
    "Keep only the newest N archived movie files on the disk (with their sidecars and pictures).", valueName: "n"))
  var keepLocal: Int?

  @Option(name: .customLong("archive-wait"), parsing: .unconditional, help: ArgumentHelp(
    "At the end, how long uploads may go on before camfx exits, the rest left in the journal for the next run or "
      + "camfx archive (default 60s).", valueName: "time"))
  var wait: String?

  /// What the options given describe, checked without contacting the store; nil
  /// without `--archive`.
  /// - Parameter folder: where the journal goes, which keys are named relative to.
  func plan(folder: String) throws -> ArchivePlan? {
    guard let archive else {
      let given = [("--archive-endpoint", endpoint != nil), ("--archive-region", region != nil), ("--archive-lazy", lazy),
        ("--archive-keep-local", keepLocal != nil), ("--archive-wait", wait != nil)]
      if let (name, _) = given.first(where: \.1) { throw RecordingOptionError("\(name) sets the archive: add --archive s3://BUCKET/PREFIX") }
      return nil
    }
    if let keepLocal, keepLocal < 0 { throw RecordingOptionError("--archive-keep-local must be 0 or more") }
    let destination = try ArchiveDestination(url: archive, endpoint: endpoint, region: region ?? ArchiveDestination.defaultRegion())
    let credentials = try ArchiveCredentials.find()
    var options = S3Archive.Options(destination: destination, credentials: credentials, folder: folder)
    options.keepLocal = keepLocal
    let waitSeconds = try wait.map { try RecordingLimits.parseDurationOrZero($0, option: "--archive-wait").seconds } ?? 60
    return ArchivePlan(options: options, lazy: lazy, waitSeconds: waitSeconds)
  }

  /// The folder of a recording's journal: the fixed part of the first file's folder
  /// (before any strftime field), else the event clips', else here.
  static func folder(files: [String], eventPattern: String?) -> String {
    guard let name = files.first ?? eventPattern else { return "." }
    let parts = name.split(separator: "/", omittingEmptySubsequences: false).dropLast()
    let fixed = parts.prefix { !$0.contains("%") }
    let folder = fixed.joined(separator: "/")
    return folder.isEmpty ? (name.hasPrefix("/") ? "/" : ".") : folder
  }
}

/// An archive described by the options, before it is started.
struct ArchivePlan {
  var options: S3Archive.Options
  var lazy: Bool
  var waitSeconds: Double

  /// Opens the journal, asks the store for the bucket (unless lazy) and starts uploading.
  /// - Throws: `ArchiveError`, one line, before anything is recorded.
  func start(report: @escaping @Sendable (String) -> Void) throws -> S3Archive {
    let archive = try S3Archive(options: options, report: { report($0) })
    if !lazy { try archive.checkStore() }
    try archive.start()
    return archive
  }
}

extension S3Archive {
  /// Lets the uploads finish (at most `plan.waitSeconds`), then the summary line and,
  /// when files were left or lost, the failure the exit status reports.
  func close(waitingAtMost seconds: Double) -> (line: String, failure: String?) {
    let left = finish(waitingAtMost: seconds)
    var line = "archive: \(left.archivedFiles) file(s) (\(RecordingStatusLine.bytes(left.archivedBytes))) archived to \(left.destination)"
    var failure: String?
    if left.files > 0 {
      line += "; \(left.files) file(s) (\(RecordingStatusLine.bytes(left.bytes))) still wait in \(options.folder)/\(ArchiveJournalName.fileName)"
      failure = "\(left.files) file(s) were not archived" + (left.outage.map { " (\($0))" } ?? "")
        + "; `camfx archive \(options.folder) \(left.destination)` uploads them"
    }
    if !left.lostFiles.isEmpty {
      line += "; \(left.lostFiles.count) file(s) deleted before they were archived"
      failure = (failure.map { $0 + "; " } ?? "") + "\(left.lostFiles.count) file(s) were deleted before they were archived"
    }
    return (line, failure)
  }
}
