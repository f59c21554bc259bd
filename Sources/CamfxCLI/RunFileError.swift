/// What is wrong with a `camfx run` file, as one line that names the file, the line
/// and the key, the way compilers do, so an editor can jump to it:
///
///     cams.yml:12: cameras.front.fsp: unknown option (did you mean 'fps'?)
///     cams.yml:3: YAML: mapping values are not allowed in this context
///     cams.yml: cannot be read: No such file or directory
struct RunFileError: Error, CustomStringConvertible, Equatable {
  /// The file as it was named.
  var path: String
  /// The line the error is on (from 1); nil when the file could not be read at all.
  var line: Int?
  /// Where in the file: `cameras.front.fps`, `mosaic.layout`, `YAML` for its syntax.
  var key: String?
  var message: String

  var description: String {
    path + (line.map { ":\($0)" } ?? "") + ": " + (key.map { "\($0): " } ?? "") + message
  }
}
