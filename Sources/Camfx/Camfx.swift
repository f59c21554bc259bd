@_exported import CamfxCore
@_exported import CropFilter
@_exported import GrayscaleFilter
@_exported import MirrorFilter
@_exported import WatermarkFilter

extension FilterRegistry {
  /// Every built-in filter, in the order `camfx filters` lists them (allfilters.c style).
  public static let builtin = FilterRegistry([Watermark.self, Grayscale.self, Crop.self, Mirror.self])
}

/// The camfx release, as `camfx --version` prints it.
public enum CamfxVersion {
  public static let current = "0.5.0"
}
