import CamfxMedia

extension MovieWriter {
  /// A writer with one movie file, `path` (its extension picks the container).
  /// - Throws: as `init(settings:outputs:)`, and `MediaSettingsError` for an
  ///   unsupported extension.
  public convenience init(path: String, settings: MovieSettings, file: MovieFileOutput.Options = .init()) throws {
    try settings.validate()
    try self.init(settings: settings, outputs: [try MovieFileOutput(path: path, options: file)])
  }
}
