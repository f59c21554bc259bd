import ArgumentParser
import Camfx
import CamfxArchive
import Foundation

/// `camfx archive FOLDER s3://BUCKET/PREFIX [FILE...]`: uploads what an earlier
/// recording left waiting in FOLDER's journal (a box that was offline, a store that was
/// down when camfx ended), and the files named.
struct ArchiveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "archive",
    abstract: "Upload the files a recording left waiting for its archive (and any named) to S3-compatible storage.",
    discussion: """
      Reads FOLDER/.camfx-archive.json, the journal `camfx record --archive` keeps beside its \
      files, and uploads every file it lists as waiting, going on with a multipart upload from \
      its last confirmed part. FILEs are added to the journal first. Keys are PREFIX, a slash \
      and each file's name relative to FOLDER. Credentials come from AWS_ACCESS_KEY_ID and \
      AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN), or AWS_PROFILE in ~/.aws/credentials. Ctrl-C \
      stops between requests, leaving the rest in the journal. Exit 1 when files were left.
      """)

  @Argument(help: ArgumentHelp("The folder of the recordings and their journal.", valueName: "folder"))
  var folder: String

  @Argument(help: ArgumentHelp("Where they go: s3://BUCKET/PREFIX.", valueName: "s3://bucket/prefix"))
  var destination: String

  @Argument(help: ArgumentHelp("Files to upload as well (in FOLDER or below it).", valueName: "file"))
  var files: [String] = []

  @Option(help: ArgumentHelp("The store's URL when it is not AWS: http(s)://HOST:PORT.", valueName: "url"))
  var endpoint: String?

  @Option(help: ArgumentHelp("The store's region (default AWS_REGION, else us-east-1).", valueName: "name"))
  var region: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Give up after this long, the rest left in the journal (default: until everything is archived).", valueName: "time"))
  var wait: String?

  func run() throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw RecordingOptionError("'\(folder)' is not a folder")
    }
    for file in files {
      guard FileManager.default.isReadableFile(atPath: file) else { throw RecordingOptionError("'\(file)' cannot be read") }
    }
    let plan = ArchivePlan(
      options: S3Archive.Options(
        destination: try ArchiveDestination(url: destination, endpoint: endpoint, region: region ?? ArchiveDestination.defaultRegion()),
        credentials: try ArchiveCredentials.find(), folder: folder),
      lazy: false,
      waitSeconds: try wait.map { try RecordingLimits.parseDurationOrZero($0, option: "--wait").seconds } ?? .infinity)
    let report: @Sendable (String) -> Void = { RecordCommand.printToStderr("camfx: \($0)\n") }
    let archive = try plan.start(report: report)
    let signals = StopSignals(signals: [SIGINT, SIGTERM, SIGHUP]) { _, _ in archive.stopSoon() }
    defer { signals.cancel() }
    for file in files { archive.add(file) }
    let waiting = archive.backlog
    if waiting.files > 0 {
      RecordCommand.printToStderr(
        "camfx: uploading \(waiting.files) file(s) (\(RecordingStatusLine.bytes(waiting.bytes))) to \(waiting.destination)\n")
    }
    let end = archive.close(waitingAtMost: plan.waitSeconds)
    RecordCommand.printToStderr("camfx: \(end.line)\n")
    if let failure = end.failure { throw RecordingFailure(message: failure) }
  }
}
