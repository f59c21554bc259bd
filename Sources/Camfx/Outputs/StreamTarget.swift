import CamfxMedia

/// `-o rtmp://…`, `-o srt://…`, `-o -` (standard output) or `-o hls/index.m3u8`: a live
/// stream (`LiveStreamOutput`) with its own queue and sender, which reconnects (a
/// network one) and drops late video rather than hold the recording up.
public struct StreamTarget: OutputTarget {
  public let destination: StreamDestination

  public static func parse(_ name: String, _ options: OutputTargetOptions) throws -> StreamTarget? {
    guard StreamDestination.isStream(name) else { return nil }
    let destination = try StreamDestination(parsing: name, format: options.format, hls: options.hls)
    if destination.kind == .hls { try OutputFile(path: name, overwrite: options.overwrite).requireWritableDirectory() }
    return StreamTarget(destination: destination)
  }

  public var displayName: String { destination.displayName }
  /// A playlist is a file (by any spelling); a URL or the pipe is itself.
  public var identity: String {
    destination.kind == .hls ? OutputFile.identity(of: destination.url) : destination.url
  }
  public var takesFormat: Bool { destination.kind != .hls }

  public func makeOutput(_ options: OutputMakingOptions) throws -> any MovieOutput {
    try LiveStreamOutput(destination: destination)
  }
}
