import CamfxMedia
import Foundation

/// The events in a folder, read from their sidecars (`EventRecorder` writes one JSON
/// beside each clip): what `camfx events DIR` lists, filters and prunes. The sidecars
/// are the index — no database to keep in step with the files, and a clip copied or
/// deleted by hand takes its own entry with it.
public struct EventIndex: Sendable {
  public let directory: String
  /// The events, oldest trigger first.
  public private(set) var events: [EventRecorder.Event]

  /// Reads every sidecar in `directory` (files that are not event sidecars are left
  /// alone).
  /// - Throws: `RecordingOptionError` when the folder cannot be read.
  public init(directory: String) throws {
    self.directory = directory
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      throw RecordingOptionError("cannot read the folder '\(directory)': \((error as NSError).localizedDescription)")
    }
    let decoder = JSONDecoder()
    // Dot files are sidecars still being written under a temporary name.
    events = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { name in
      let path = (directory as NSString).appendingPathComponent(name)
      guard let data = FileManager.default.contents(atPath: path),
        var event = try? decoder.decode(EventRecorder.Event.self, from: data)
      else { return nil }
      // Paths in a sidecar are as the recording named them; here they sit beside it.
      event.files = event.files.map { (directory as NSString).appendingPathComponent(($0 as NSString).lastPathComponent) }
      event.path = (directory as NSString).appendingPathComponent((event.path as NSString).lastPathComponent)
      return event
    }.sorted { $0.triggeredAtEpoch < $1.triggeredAtEpoch }
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
