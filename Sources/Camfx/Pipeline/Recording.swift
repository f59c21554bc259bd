/// A recording as its configuration asks for it: the source's pictures decoded,
/// filtered and encoded (`RecordingPipeline`), or its own packets copied
/// (`PacketCopySession`, when the video codec is `copy`). The one place that choice is
/// made; the caller then gets the type it can attach taps, a preview or triggers to.
public enum Recording {
  case encoding(RecordingPipeline)
  case copying(PacketCopySession)

  /// Opens the source and the outputs `configuration` names, for the one or the other.
  /// - Parameter report: told what devices adjusted and when outputs reconnect or end.
  public init(_ configuration: RecordingPipeline.Configuration, report: @escaping @Sendable (String) -> Void = { _ in })
    throws
  {
    if configuration.video.copiesPackets {
      self = .copying(try PacketCopySession(configuration, report: report))
    } else {
      self = .encoding(try RecordingPipeline(configuration, report: report))
    }
  }

  /// What a runner stops, reports and waits for.
  public var job: any RecordingJob {
    switch self {
    case .encoding(let pipeline): return pipeline
    case .copying(let copy): return copy
    }
  }
}
