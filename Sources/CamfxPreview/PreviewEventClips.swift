import Camfx
import Foundation

/// The newest event clips of a camera, for its page (`events`, `events/NAME.png`),
/// read from the sidecars in its event folder (`EventIndex`) at each request. A picture
/// is served only for a clip of that index, by the clip's own name: nothing in a
/// request ever becomes a path.
enum PreviewEventClips {
  /// The clips the page lists, newest first.
  static let listed = 8

  struct Clip: Encodable {
    let name: String
    let trigger: String
    /// When it was triggered, seconds since 1970.
    let triggeredAt: Double
    let seconds: Double
    let frames: Int
    let inProgress: Bool
    let picture: Bool

    enum CodingKeys: String, CodingKey {
      case name, trigger, seconds, frames, picture
      case triggeredAt = "triggered_at", inProgress = "in_progress"
    }
  }

  /// `{"clips": [...]}`, newest first; no clips when the folder cannot be read (none yet).
  static func json(folder: String) -> [UInt8] {
    let clips = ((try? EventIndex(directory: folder))?.events ?? []).suffix(listed).reversed().map { event in
      let name = ((event.path as NSString).lastPathComponent as NSString).deletingPathExtension
      return Clip(
        name: name, trigger: event.trigger, triggeredAt: event.triggeredAtEpoch, seconds: max(0, event.end - event.start),
        frames: event.frames, inProgress: event.inProgress ?? false, picture: picturePath(of: event) != nil)
    }
    let data = (try? JSONEncoder().encode(["clips": clips])) ?? Data(#"{"clips":[]}"#.utf8)
    return Array(data) + [UInt8(ascii: "\n")]
  }

  /// The PNG of the clip named `name` in `folder`, if the index has that clip and it has one.
  static func picture(folder: String, name: String) -> [UInt8]? {
    guard let index = try? EventIndex(directory: folder),
      let event = index.events.first(where: {
        (($0.path as NSString).lastPathComponent as NSString).deletingPathExtension == name
      }),
      let path = picturePath(of: event)
    else { return nil }
    return FileManager.default.contents(atPath: path).map(Array.init)
  }

  private static func picturePath(of event: EventRecorder.Event) -> String? {
    let png = EventRecorder.picturePath(of: event.path)
    return event.files.contains(png) && FileManager.default.fileExists(atPath: png) ? png : nil
  }
}
