/// Where finished files go once they are on the disk (`--archive s3://…`): the movie
/// files, segments and event clips hand their files over when they are finished and
/// synced, and loop recording asks before it deletes one.
///
/// Every method returns at once: the recording's threads call them (the writer's, under
/// its output lock), and uploads run on the archive's own thread.
public protocol FileArchive: AnyObject, Sendable {
  /// Takes a finished, synced file to upload.
  func add(_ path: String)
  /// True once the store has confirmed the file (its size and checksum).
  func isArchived(_ path: String) -> Bool
  /// Loop recording deleted `path` before the store confirmed it, to keep the disk from
  /// filling: the archive stops waiting for it and says so, unless the store confirmed
  /// it meanwhile or an upload still reads it (then that upload's end decides).
  func deletedUnarchived(_ path: String, reason: String)
  /// What waits and what went: `/state`, `/metrics` and the summary show it.
  var backlog: ArchiveBacklog { get }
}

/// An archive's figures at one moment.
public struct ArchiveBacklog: Sendable, Codable, Equatable {
  /// Where the files go (`s3://bucket/prefix`).
  public var destination: String
  /// Files not confirmed by the store yet, and their bytes.
  public var files = 0
  public var bytes: Int64 = 0
  /// Seconds the oldest waiting file has waited.
  public var oldestWaitingSeconds: Double?
  /// Files and bytes the store confirmed since the start.
  public var archivedFiles = 0
  public var archivedBytes: Int64 = 0
  /// Files deleted before they were archived (loop recording on a full disk), or gone
  /// from the disk before they could be.
  public var lostFiles: [String] = []
  /// Why the store cannot be reached now, while it cannot.
  public var outage: String?

  public init(destination: String) { self.destination = destination }

  enum CodingKeys: String, CodingKey {
    case destination, files, bytes, oldestWaitingSeconds = "oldest_waiting_seconds", archivedFiles = "archived_files"
    case archivedBytes = "archived_bytes", lostFiles = "lost_files", outage
  }
}

/// A `FileArchive` in `MovieFileOutput.Options`, which compare equal when they name the
/// same archive.
public struct FileArchiveReference: Sendable, Equatable {
  public let archive: any FileArchive
  public init(_ archive: any FileArchive) { self.archive = archive }
  public static func == (a: Self, b: Self) -> Bool { a.archive === b.archive }
}

extension RecordingPipeline.Configuration {
  /// `file`, `segments` and `events` with `archive` in their file options.
  var archivedFile: MovieFileOutput.Options {
    var file = self.file
    file.archive = archive.map(FileArchiveReference.init) ?? file.archive
    return file
  }

  var archivedSegments: SegmentedMovieOutput.Options? {
    guard var segments else { return nil }
    segments.file.archive = archive.map(FileArchiveReference.init) ?? segments.file.archive
    return segments
  }

  var archivedEvents: EventRecorder.Options? {
    guard var events else { return nil }
    events.file.archive = archive.map(FileArchiveReference.init) ?? events.file.archive
    return events
  }
}
