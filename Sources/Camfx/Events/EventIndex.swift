import CamfxMedia
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The events in a folder, read from their sidecars (`EventRecorder` writes one JSON
/// beside each clip): what `camfx events DIR` lists, filters and prunes. The sidecars
/// are the index — no database to keep in step with the files, and a clip copied or
/// deleted by hand takes its own entry with it.
public struct EventIndex: Sendable {
  public let directory: String
  /// The events, oldest trigger first.
  public private(set) var events: [EventRecorder.Event]

  /// Reads every sidecar in `directory` whose clip is there (files that are not event
  /// sidecars are left alone).
  ///
  /// A sidecar stands for the clip of its own name: `ev-1.json` for `ev-1.mp4` (or
  /// `.mov`, `.mkv`), whose files are that movie, `ev-1.png` and `ev-1.json`, whatever
  /// the sidecar's `path` and `files` say. A sidecar whose `path` names another clip is
  /// not an event's, and one whose movie is gone (deleted by hand) stands for nothing;
  /// both are left out, and so never count toward a limit. A clip the sidecar calls in
  /// progress is judged by its movie: once that is a finished MP4 (`camfx repair`), it
  /// is listed with the movie's own frames and length.
  /// - Throws: `RecordingOptionError` when `directory` is not a folder that can be read.
  public init(directory: String) throws {
    self.directory = directory
    var status = stat()
    guard stat(directory, &status) == 0 else {
      throw RecordingOptionError("cannot read the folder '\(directory)': \(String(cString: strerror(errno)))")
    }
    guard status.st_mode & S_IFMT == S_IFDIR else { throw RecordingOptionError("'\(directory)' is not a folder") }
    guard access(directory, R_OK | X_OK) == 0 else {
      throw RecordingOptionError("cannot read the folder '\(directory)': \(String(cString: strerror(errno)))")
    }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      throw RecordingOptionError("cannot read the folder '\(directory)'")
    }
    let decoder = JSONDecoder()
    // Dot files are sidecars still being written under a temporary name.
    events = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { name in
      let sidecar = (directory as NSString).appendingPathComponent(name)
      guard let data = FileManager.default.contents(atPath: sidecar),
        var event = try? decoder.decode(EventRecorder.Event.self, from: data)
      else { return nil }
      // Paths in a sidecar are as the recording named them; here the clip sits beside it.
      let clipName = (event.path as NSString).lastPathComponent
      guard (clipName as NSString).deletingPathExtension == (name as NSString).deletingPathExtension,
        ["mp4", "mov", "mkv"].contains((clipName as NSString).pathExtension.lowercased())
      else { return nil }
      event.path = (directory as NSString).appendingPathComponent(clipName)
      guard FileManager.default.fileExists(atPath: event.path) else { return nil }
      event.files = EventRecorder.files(of: event.path)
      if event.inProgress == true { Self.takeFinishedMovie(into: &event) }
      return event
    }.sorted { $0.triggeredAtEpoch < $1.triggeredAtEpoch }
  }

  /// When the clip of an event its sidecar calls in progress is a finished movie (cut
  /// short, then repaired), the event as the movie says: its frames, its length from the
  /// clip's start, its bytes, and no longer in progress.
  private static func takeFinishedMovie(into event: inout EventRecorder.Event) {
    guard FragmentedMovieFinisher.isFinished(path: event.path), let movie = try? MovieReader(path: event.path) else { return }
    event.inProgress = nil
    event.frames = movie.statedFrameCount
    if let duration = movie.videoDuration ?? movie.duration { event.end = event.start + duration.seconds }
    event.bytes = (try? FileManager.default.attributesOfItem(atPath: event.path)[.size] as? Int64) ?? event.bytes
  }

  /// The events triggered within `since ..< until` (seconds since 1970).
  /// - Parameter minimumScore: only events whose motion peak reached it (events without
  ///   a score, from other triggers, are left out too).
  public func events(since: Double? = nil, until: Double? = nil, minimumScore: Double? = nil) -> [EventRecorder.Event] {
    events.filter { e in
      (since.map { e.triggeredAtEpoch >= $0 } ?? true) && (until.map { e.triggeredAtEpoch < $0 } ?? true)
        && (minimumScore.map { minimum in (e.score ?? -1) >= minimum } ?? true)
    }
  }

  /// Bytes of every file of `event` that exists.
  static func bytes(of event: EventRecorder.Event) -> Int64 {
    event.files.reduce(0) { total, path in
      total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0)
    }
  }

  /// Deletes the oldest events (every file of each) until at most `keep` are left, they
  /// take at most `maximumTotalBytes`, and the folder's file system has `minimumFreeBytes`
  /// free — the same limits as a loop recording's segments.
  /// - Returns: the events deleted.
  public mutating func prune(keep: Int? = nil, maximumTotalBytes: Int64? = nil, minimumFreeBytes: Int64? = nil)
    -> [EventRecorder.Event]
  {
    var deleted: [EventRecorder.Event] = []
    var total = events.reduce(0) { $0 + Self.bytes(of: $1) }
    while let oldest = events.first {
      let tooMany = keep.map { events.count > $0 } ?? false
      let tooBig = maximumTotalBytes.map { total > $0 } ?? false
      let tooFull = minimumFreeBytes.map { (FreeSpaceCheck.freeBytes(in: directory) ?? .max) < $0 } ?? false
      guard tooMany || tooBig || tooFull else { break }
      total -= Self.bytes(of: oldest)
      for path in oldest.files { try? FileManager.default.removeItem(atPath: path) }
      events.removeFirst()
      deleted.append(oldest)
    }
    return deleted
  }
}
