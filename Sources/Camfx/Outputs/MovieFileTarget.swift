import CamfxMedia

/// `-o rec.mp4`: a movie file (`MovieFileOutput`), or with `--segment` a series of them
/// (`SegmentedMovieOutput`). Its name's fields (`%Y%m%d`…) are filled in when it is read,
/// or for each segment; its folder must be writable and its extension a container
/// camfx writes. The last kind tried: any name that is not a stream is a file.
public struct MovieFileTarget: OutputTarget {
  public let path: String

  public static func parse(_ name: String, _ options: OutputTargetOptions) throws -> MovieFileTarget? {
    try NamePattern.check(name, option: "-o")
    let path = options.segmented ? name : NamePattern.expand(name, at: options.startTime)
    try OutputFile(path: path, overwrite: options.overwrite).requireWritableDirectory()
    _ = try MovieContainer(path: path)
    return MovieFileTarget(path: path)
  }

  public var displayName: String { path }
  public var identity: String { OutputFile.identity(of: path) }
  public var filePath: String? { path }

  public func makeOutput(_ options: OutputMakingOptions) throws -> any MovieOutput {
    if let segments = options.segments { return try SegmentedMovieOutput(pattern: path, options: segments) }
    return try MovieFileOutput(path: path, options: options.file)
  }
}
