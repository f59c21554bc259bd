@_exported import CamfxCore

extension FilterRegistry {
  /// Every built-in filter, in the order `camfx filters` lists them (allfilters.c style).
  public static let builtin = FilterRegistry([])
}
