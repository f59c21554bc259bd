import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A recording cut into movie files of `interval` each (`--segment 10m`), as dashcams
/// and CCTV recorders write them, with loop recording: the oldest segments this
/// recording made are deleted to keep `keep` of them, or `maximumTotalBytes`, or
/// `minimumFreeBytes` free on the disk.
///
/// Each segment is a `MovieFileOutput` (crash-safe, finished in place) that starts on
/// a keyframe (the writer forces one at the boundary: `requestsKeyframe(atSeconds:)`),
/// carries its own codec headers, starts at timestamp 0 and plays alone. Packets are
/// cut by presentation time: audio packets that start at or after the cut (they arrive
/// ahead of the video, which the encoder's lookahead holds back) wait for the new
/// segment, so no sample is lost or doubled at a boundary.
///
/// `@unchecked Sendable`: every method is called under the writer's output lock.
public final class SegmentedMovieOutput: MovieOutput, @unchecked Sendable {
  /// One file of the recording, as `--stats-json` lists it (declared with the figures
  /// every file output reports, in CamfxMedia).
  public typealias Segment = FileOutputFigures.Segment

  public struct Options: Sendable, Equatable {
    public var interval: Double
    /// Keep at most this many segments (the newest).
    public var keep: Int?
    /// Keep the newest segments that fit in this many bytes.
    public var maximumTotalBytes: Int64?
    /// Delete the oldest segment (or, with none left to delete, stop) before the free
    /// space on the output's file system falls below this.
    public var minimumFreeBytes: Int64?
    public var file: MovieFileOutput.Options
    public init(
      interval: Double, keep: Int? = nil, maximumTotalBytes: Int64? = nil, minimumFreeBytes: Int64? = nil,
      file: MovieFileOutput.Options = .init()
    ) {
      self.interval = interval
      self.keep = keep
      self.maximumTotalBytes = maximumTotalBytes
      self.minimumFreeBytes = minimumFreeBytes
      self.file = file
    }
  }

  public let options: Options
  /// The `-o` name the segments' names are made from.
  public let pattern: String
  public private(set) var segments: [Segment] = []
  public var fileFigures: FileOutputFigures? { FileOutputFigures(segments: segments) }
  public private(set) var stopRequest: String?

  private var names: SegmentNames
  private var streams: [EncodedStream] = []
  private var current: MovieFileOutput?
  /// Presentation time (seconds) at which the next segment begins, once the current
  /// one has its first frame: the first keyframe at or after it starts the next segment.
  private var nextBoundary: Double?
  /// The next boundary as the frames going into the encoder see it. It is kept apart
  /// from `nextBoundary` because the encoder holds frames back (x264's lookahead: 40
  /// frames at preset medium): the frame that must be a keyframe is asked for long
  /// before the packets of the boundary come out. Both run on the same schedule, the
  /// first frame's time plus whole intervals.
  private var nextRequest: Double?
  /// The current segment's start, in seconds and in each stream's ticks.
  private var segmentStart: Double = 0
  private var offsets: [Int64] = []
  /// Audio for the next segment, referenced until the cut.
  private var held: [EncodedPacket] = []
  private var freeSpace: FreeSpaceCheck?
  private var lastVideoEnd: Double = 0
  /// The segment before the cut, kept open for sound from before the cut that arrives
  /// after the keyframe which cut it (a sound encoder behind the video on a busy
  /// machine); finished when the sound reaches the cut, or a second of video later.
  private var previous: (output: MovieFileOutput, offsets: [Int64], end: Double, index: Int, start: Double)?
  /// The end of the newest sound packet seen (recording time), or nil before any.
  private var lastAudioEnd: Double?
  private var hasAudio: Bool { streams.contains { $0.kind == .audio } }

  /// - Parameter pattern: the `-o` name, with strftime fields or without (numbered).
  /// - Throws: `MediaSettingsError` for an unsupported extension.
  public init(pattern: String, options: Options) throws {
    _ = try MovieContainer(path: pattern)
    try NamePattern.check(pattern, option: "-o")
    self.options = options
    self.pattern = pattern
    names = SegmentNames(pattern: pattern, overwrite: options.file.overwrite)
    if let minimum = options.minimumFreeBytes { freeSpace = FreeSpaceCheck(path: pattern, minimumBytes: minimum) }
  }

  private func releaseHeld() { held.removeAll() }

  /// True for a loop recording (old segments may be deleted).
  private var loops: Bool { options.keep != nil || options.maximumTotalBytes != nil || options.minimumFreeBytes != nil }

  /// Video frames in the finished segments (what each file holds, deleted ones too).
  private var framesInFinishedSegments = 0

  public var videoPacketsWritten: Int {
    framesInFinishedSegments + (current?.videoPacketsWritten ?? 0) + (previous?.output.videoPacketsWritten ?? 0)
  }
  public var videoEndSeconds: Double {
    // A segment that failed holds less than was handed to it.
    if let current, case .failed = current.status { return segmentStart + current.videoEndSeconds }
    if let last = segments.last, current == nil, last.duration < lastVideoEnd - last.start { return last.start + last.duration }
    return lastVideoEnd
  }

  /// Bytes written to every segment, those loop recording deleted since included.
  public var bytesWritten: Int64 {
    // The current segment's entry counts 0 bytes until it is finished.
    segments.reduce(0) { $0 + $1.bytes } + (current?.bytesWritten ?? 0) + (previous?.output.bytesWritten ?? 0)
  }

  public var report: OutputReport {
    let state: OutputReport.State = current.map { OutputReport.State($0.status) } ?? (segments.isEmpty ? .waiting : .finished)
    var error: String? = nil
    if let current, case .failed(let e) = current.status { error = e.description }
    return OutputReport(
      name: pattern, kind: "segments", state: state, bytes: bytesWritten, videoFrames: videoPacketsWritten, error: error)
  }

  public func prepare(streams: [EncodedStream]) throws(FFmpegError) {
    self.streams = streams
    offsets = Array(repeating: 0, count: streams.count)
  }

  public var keyframeIntervalLimit: Double? { options.interval }

  public func requestsKeyframe(atSeconds t: Double) -> Bool {
    guard let boundary = nextRequest else {
      nextRequest = t + options.interval
      return false
    }
    guard t >= boundary else { return false }
    nextRequest = Self.boundary(after: t, from: boundary, interval: options.interval)
    return true
  }

  /// The first boundary past `t` on the schedule `from`, `from + interval`, ...
  private static func boundary(after t: Double, from boundary: Double, interval: Double) -> Double {
    let steps = ((t - boundary) / interval).rounded(.down) + 1
    return boundary + max(1, steps) * interval
  }

  public func write(_ packet: EncodedPacket) throws(FFmpegError) {
    if current == nil { try startSegment(at: 0) }
    let pts = packet.presentationSeconds
    if packet.stream.kind == .audio {
      lastAudioEnd = max(lastAudioEnd ?? -.infinity, pts + packet.durationSeconds)
      if let open = previous {
        // Sound from before the cut goes to the segment it belongs to; the first from
        // after it says that segment is whole.
        if pts < open.end - 1e-9 { return try forward(packet, to: open.output, offsets: open.offsets) }
        try finishPrevious()
      }
    } else if let open = previous, pts >= open.end + 1 {
      try finishPrevious()
    }
    if packet.stream.kind == .video {
      if let boundary = nextBoundary, packet.isKeyframe, pts >= boundary {
        try cut(at: packet)
      }
      if nextBoundary == nil { nextBoundary = pts + options.interval }
      lastVideoEnd = max(lastVideoEnd, pts + packet.durationSeconds)
      try checkFreeSpace(at: pts)
    } else if let boundary = nextBoundary, pts >= boundary - 1e-9 {
      // Sound for the next segment: it waits until the video reaches the cut.
      held.append(packet)
      return
    }
    try forward(packet)
  }

  /// Writes `packet` into the current segment, its timestamps moved to the segment's start.
  private func forward(_ packet: EncodedPacket) throws(FFmpegError) {
    guard let current else { return }
    try forward(packet, to: current, offsets: offsets)
  }

  private func forward(_ packet: EncodedPacket, to current: MovieFileOutput, offsets: [Int64]) throws(FFmpegError) {
    let offset = offsets[packet.stream.index]
    if offset == 0 {
      try current.write(packet)
      return
    }
    // The packet is shared with the other outputs: the segment's timestamps go on a
    // reference of its own.
    let moved = try EncodedPacket(stream: packet.stream, referencing: packet.pointer)
    if moved.pointer.pointee.pts != CAMFX_AV_NOPTS_VALUE { moved.pointer.pointee.pts -= offset }
    if moved.pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE { moved.pointer.pointee.dts -= offset }
    try current.write(moved)
  }

  /// Finishes the current segment before `keyframe` and starts the next with it.
  private func cut(at keyframe: EncodedPacket) throws(FFmpegError) {
    let cutSeconds = keyframe.presentationSeconds
    // Held sound that still belongs to the old segment goes there first.
    for packet in held where packet.presentationSeconds < cutSeconds { try forward(packet) }
    // One segment at most waits for its sound.
    try finishPrevious()
    if hasAudio, (lastAudioEnd ?? -.infinity) < cutSeconds - 1e-9, let output = current {
      // The sound has not reached the cut yet: the segment stays open for it.
      previous = (output, offsets, cutSeconds, segments.count - 1, segmentStart)
      current = nil
    } else {
      try finishCurrent(end: cutSeconds)
    }
    try startSegment(at: cutSeconds, firstPTS: keyframe.pointer.pointee.pts, stream: keyframe.stream)
    for packet in held where packet.presentationSeconds >= cutSeconds { try forward(packet) }
    releaseHeld()
    if let boundary = nextBoundary {
      nextBoundary = Self.boundary(after: cutSeconds, from: boundary, interval: options.interval)
    }
  }

  private func startSegment(at seconds: Double, firstPTS: Int64 = 0, stream: EncodedStream? = nil) throws(FFmpegError) {
    let name = names.next(at: time(nil))
    let output: MovieFileOutput
    // A segment's time zero is `seconds` into the recording.
    var fileOptions = options.file
    fileOptions.creationTime = options.file.creationTime.map { $0 + seconds }
    do {
      output = try MovieFileOutput(path: name, options: fileOptions)
    } catch let error as FFmpegError {
      throw error
    } catch {
      throw FFmpegError.invalid("segment '\(name)'", "\(error)")
    }
    try output.prepare(streams: streams)
    current = output
    segmentStart = seconds
    for s in streams {
      if let stream, s === stream {
        offsets[s.index] = firstPTS
      } else if let stream {
        offsets[s.index] = av_rescale_q(firstPTS, stream.timeBase, s.timeBase)
      } else {
        offsets[s.index] = 0
      }
    }
    segments.append(Segment(name: name, start: seconds, duration: 0, bytes: 0, kept: true))
    try deleteOldSegments()
  }

  /// Finishes the segment that waited for its sound.
  private func finishPrevious() throws(FFmpegError) {
    guard let open = previous else { return }
    previous = nil
    try open.output.finish()
    segments[open.index].duration = open.end - open.start
    segments[open.index].bytes = open.output.bytesWritten
    framesInFinishedSegments += open.output.videoPacketsWritten
  }

  private func finishCurrent(end: Double) throws(FFmpegError) {
    guard let current else { return }
    try current.finish()
    segments[segments.count - 1].duration = end - segmentStart
    segments[segments.count - 1].bytes = current.bytesWritten
    framesInFinishedSegments += current.videoPacketsWritten
    self.current = nil
  }

  /// Where finished segments go (`--archive`), if anywhere: loop recording then
  /// deletes archived segments first, and one the store has not confirmed only when
  /// the disk would otherwise fill (`--min-free`).
  private var archive: (any FileArchive)? { options.file.archive?.archive }

  /// Loop recording: deletes the oldest finished segments beyond `keep` or the total;
  /// with an archive, only those it has confirmed (the others wait for it, and count).
  private func deleteOldSegments() throws(FFmpegError) {
    // Segments the archive deleted itself (`--archive-keep-local`) are gone already.
    if archive != nil {
      for i in segments.indices.dropLast() where segments[i].kept && access(segments[i].name, F_OK) != 0 {
        segments[i].kept = false
      }
    }
    while true {
      let kept = segments.indices.filter { segments[$0].kept && $0 != previous?.index }
      guard kept.count > 1 else { return }
      let finished = kept.dropLast()
      let total = finished.reduce(Int64(0)) { $0 + segments[$1].bytes }
      let overCount = options.keep.map { kept.count > $0 } ?? false
      let overTotal = options.maximumTotalBytes.map { total > $0 } ?? false
      guard overCount || overTotal else { return }
      let oldest: Int?
      if let archive {
        oldest = finished.first { archive.isArchived(segments[$0].name) }
      } else {
        oldest = finished.first
      }
      guard let oldest else { return }
      deleteSegment(oldest)
    }
  }

  private func deleteSegment(_ index: Int) {
    unlink(segments[index].name)
    segments[index].kept = false
  }

  /// `--min-free`: deletes the oldest segment while space is short (an archived one
  /// first); with none left to delete, asks the recording to stop.
  private func checkFreeSpace(at seconds: Double) throws(FFmpegError) {
    guard var check = freeSpace, stopRequest == nil else { return }
    defer { freeSpace = check }
    guard check.isLow(atMediaSeconds: seconds) else { return }
    while check.isLowNow() {
      let candidates = segments.indices.dropLast().filter { segments[$0].kept && $0 != previous?.index }
      guard loops, let first = candidates.first else {
        stopRequest = "free space on '\(check.directory)' fell below --min-free \(check.limitText)"
        return
      }
      guard let archive else {
        deleteSegment(first)
        continue
      }
      if let archived = candidates.first(where: { archive.isArchived(segments[$0].name) }) {
        deleteSegment(archived)
      } else {
        // The disk would fill: the oldest goes although the store does not have it. The
        // archive is told first, so that no upload takes the file between the two.
        archive.deletedUnarchived(
          segments[first].name,
          reason: "free space on '\(check.directory)' fell below --min-free \(check.limitText) and no archived segment was left to delete")
        deleteSegment(first)
      }
    }
  }

  public func finish() throws(FFmpegError) {
    try finishPrevious()
    if current == nil { try startSegment(at: 0) }
    for packet in held { try forward(packet) }
    releaseHeld()
    try finishCurrent(end: max(lastVideoEnd, segmentStart))
  }

  public func cancel() {
    if let open = previous {
      previous = nil
      open.output.cancel()
      segments[open.index].duration = open.end - open.start
      segments[open.index].bytes = open.output.bytesWritten
      framesInFinishedSegments += open.output.videoPacketsWritten
    }
    guard let current else { return }
    current.cancel()
    // What the file holds: less than was handed to it when it failed (a full disk).
    let failed = if case .failed = current.status { true } else { false }
    segments[segments.count - 1].duration = max(0, failed ? current.videoEndSeconds : lastVideoEnd - segmentStart)
    segments[segments.count - 1].bytes = current.bytesWritten
    framesInFinishedSegments += current.videoPacketsWritten
    self.current = nil
  }
}
