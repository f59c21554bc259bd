import Camfx
import Foundation

/// The archive's list of files on the disk (`.camfx-archive.json` in the archive's
/// folder): those waiting, with a multipart upload's confirmed parts, and those the
/// store has confirmed. Rewritten whole after each change (a new file, a part, a
/// confirmation), through a temporary file, `fsync` and `rename`, so that a crash
/// leaves the old list or the new one, never half of one; a restart, `camfx archive`
/// or a reboot resumes from it.
struct ArchiveJournal: Codable, Equatable {
  static let fileName = ".camfx-archive.json"

  struct Part: Codable, Equatable {
    var number: Int
    var etag: String
    /// The part's MD5 (hex), which the store checked it with.
    var md5: String
  }

  struct Upload: Codable, Equatable {
    var id: String
    var partSize: Int64
    var parts: [Part]
  }

  struct Entry: Codable, Equatable {
    /// The file's absolute path.
    var path: String
    var key: String
    var size: Int64
    /// Seconds since 1970 when it was handed over.
    var added: Double
    var archived: Bool
    /// A multipart upload under way.
    var upload: Upload?
  }

  var version = 1
  /// `s3://bucket/prefix` the keys are in (as given, fields unfilled).
  var destination: String
  var entries: [Entry]

  /// Reads the journal of `folder`; an empty one when there is none.
  /// - Throws: `ArchiveError` for a journal that cannot be read, or names another store.
  static func load(folder: String, destination: String) throws(ArchiveError) -> ArchiveJournal {
    let path = folder + "/" + fileName
    guard let data = FileManager.default.contents(atPath: path) else {
      return ArchiveJournal(destination: destination, entries: [])
    }
    let journal: ArchiveJournal
    do {
      journal = try JSONDecoder().decode(ArchiveJournal.self, from: data)
    } catch {
      throw ArchiveError("'\(path)' is not an archive journal camfx can read: \(error)")
    }
    // Waiting files are not moved to another store silently.
    if journal.destination != destination, journal.entries.contains(where: { !$0.archived }) {
      throw ArchiveError(
        "'\(path)' lists files waiting for \(journal.destination), not \(destination): "
          + "archive them there first (camfx archive \(folder) \(journal.destination))")
    }
    return journal.destination == destination ? journal : ArchiveJournal(destination: destination, entries: [])
  }

  /// Writes the journal into `folder`, durably: through `OutputFile` (a temporary file,
  /// synced, renamed into place), then the folder synced so that the rename lasts too.
  func save(folder: String) throws(ArchiveError) {
    let path = folder + "/" + Self.fileName
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      try OutputFile(path: path, overwrite: true).write(contents: Array(try encoder.encode(self)))
    } catch {
      throw ArchiveError("cannot write '\(path)': \(error)")
    }
    let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      fsync(directory)
      close(directory)
    }
  }
}

/// The journal's file name, for messages.
public enum ArchiveJournalName {
  public static let fileName = ArchiveJournal.fileName
}
