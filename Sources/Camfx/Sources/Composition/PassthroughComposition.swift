import CamfxCore
import CamfxFFmpeg
import CamfxMedia

/// `compose --preset passthrough` (`AVAssetExportPresetPassthrough`): the items' own
/// packets one after another, neither decoded nor encoded, each item's timestamps moved
/// to continue the one before. Possible only when every item is a movie whose streams
/// have the same codec parameters as the first's, and nothing needs pictures changed.
///
/// A cut can only start on a keyframe and end before one, so cuts snap outward: an item
/// starts at the last keyframe at or before START and ends at the first keyframe at or
/// after END (`cuts` says where, once the item has been copied).
public final class PassthroughComposition: PacketSource {
  /// Where an item's copy really starts and ends, in its own time.
  public struct Cut: Sendable, Equatable {
    public var item: CompositionItem
    public var start: MediaTime
    public var end: MediaTime
  }

  public let streams: [EncodedStream]
  public private(set) var cuts: [Cut] = []
  private let items: [CompositionItem]
  private var readers: [MoviePacketReader]
  private var current = 0
  /// How much later the current item's packets play (its start lands on `position`).
  private var offset: MediaTime?
  /// Where the next item starts: the end of the last video packet copied.
  private var position = MediaTime.zero
  private var lastVideoDecodeTime: MediaTime?
  private var itemStart: MediaTime?
  private var itemEnd = MediaTime.zero

  /// Told, one line each, where an item's copy was cut on keyframes other than asked.
  private let report: @Sendable (String) -> Void

  /// Opens every item and checks that they can be joined.
  /// - Parameter report: told when an item's cut snaps to keyframes other than asked.
  /// - Throws: `RecordingOptionError` saying why they cannot pass through.
  public init(_ composition: Composition, audio: Bool = true, report: @escaping @Sendable (String) -> Void = { _ in }) throws {
    self.report = report
    if composition.transition > .zero || composition.fadeIn > .zero || composition.fadeOut > .zero {
      throw RecordingOptionError("--preset passthrough cannot fade: fades change pictures, which needs encoding")
    }
    if composition.music != nil {
      throw RecordingOptionError("--preset passthrough cannot add --music: mixing sound needs encoding")
    }
    var readers: [MoviePacketReader] = []
    for item in composition.items {
      guard case .movie(let path) = item.asset else {
        throw RecordingOptionError("--preset passthrough joins movies only: \(item) is a still, which needs encoding")
      }
      readers.append(try MoviePacketReader(path: path, audio: audio))
    }
    guard let first = readers.first else { throw RecordingOptionError("nothing to compose") }
    for (item, reader) in zip(composition.items, readers).dropFirst() {
      guard reader.streams.count == first.streams.count else {
        throw RecordingOptionError(
          "--preset passthrough: \(item) \(reader.streams.count > 1 ? "has" : "has no") sound and \(composition.items[0]) \(first.streams.count > 1 ? "has" : "has not"); use a preset that encodes")
      }
      for (a, b) in zip(first.streams, reader.streams) {
        if let difference = b.differenceForJoining(a) {
          throw RecordingOptionError(
            "--preset passthrough: \(item) differs from \(composition.items[0]) (\(difference)); use a preset that encodes, e.g. --preset 1080p")
        }
      }
    }
    streams = first.streams
    items = composition.items
    self.readers = readers
    try startItem()
  }

  public func nextPacket() throws -> EncodedPacket? {
    while current < readers.count {
      guard let packet = try readers[current].nextPacket() else {
        try endItem()
        continue
      }
      let item = items[current]
      let pts = packet.presentationTime - readers[current].videoStartTime
      if packet.stream.kind == .video {
        if itemStart == nil {
          // The first video packet after the seek: a keyframe at or before START.
          itemStart = pts
          offset = position - pts
        }
        if let end = item.end, packet.isKeyframe, pts >= end, pts > itemStart! {
          try endItem()
          continue
        }
        itemEnd = max(itemEnd, pts + packet.duration)
      } else {
        // Sound from before the picture starts, or after the cut ends, is left out.
        guard let start = itemStart, pts >= start else { continue }
        if let end = item.end, pts >= max(end, itemEnd) { continue }
      }
      guard let offset else { continue }
      packet.offset(by: offset - readers[current].videoStartTime)
      if packet.stream.kind == .video {
        // Decode times must rise across the join (B-frames start before their keyframe).
        if let last = lastVideoDecodeTime, packet.decodeTime <= last {
          let push = last - packet.decodeTime + packet.stream.time(ticks: 1)
          packet.offset(by: push)
          self.offset = offset + push
        }
        lastVideoDecodeTime = packet.decodeTime
      }
      return packet
    }
    return nil
  }

  private func startItem() throws {
    itemStart = nil
    offset = nil
    itemEnd = .zero
    guard current < readers.count else { return }
    if let start = items[current].start, start > .zero { try readers[current].seek(to: start) }
  }

  private func endItem() throws {
    if let start = itemStart {
      let cut = Cut(item: items[current], start: start, end: itemEnd)
      cuts.append(cut)
      if cut.start != (cut.item.start ?? .zero) || (cut.item.end.map { $0 != cut.end } ?? false) {
        report(
          "passthrough cuts on keyframes: \(cut.item) copied from \(RecordingStatusLine.fixed(cut.start.seconds, 3)) s "
            + "to \(RecordingStatusLine.fixed(cut.end.seconds, 3)) s")
      }
      position = itemEnd + (offset ?? position - start)
    }
    current += 1
    try startItem()
  }
}
