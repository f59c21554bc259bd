@_exported import CamfxCapture
@_exported import CamfxCore
@_exported import CamfxFFmpeg
@_exported import CamfxFrames
@_exported import CamfxMQTT
@_exported import CamfxMedia
@_exported import CamfxMosaic
@_exported import CamfxMotion
@_exported import ColorFilter
@_exported import CropFilter
@_exported import FitFilter
@_exported import Frei0rFilter
@_exported import GrayscaleFilter
@_exported import MirrorFilter
@_exported import PadFilter
@_exported import RotateFilter
@_exported import ScaleFilter
@_exported import TextFilter
@_exported import WatermarkFilter

extension FilterRegistry {
  /// Every built-in filter, in the order `camfx filters` lists them (allfilters.c style).
  public static let builtin = FilterRegistry([
    FilterDescriptor(Watermark.self), FilterDescriptor(Grayscale.self), FilterDescriptor(Crop.self),
    FilterDescriptor(Mirror.self), FilterDescriptor(Scale.self), FilterDescriptor(Fit.self), FilterDescriptor(Pad.self),
    FilterDescriptor(Rotate.self), FilterDescriptor(Color.self), FilterDescriptor(Text.self), FilterDescriptor(Timestamp.self),
    Frei0r.descriptor,
  ])
}

/// The camfx release, as `camfx --version` prints it.
public enum CamfxVersion {
  public static let current = "0.5.0"
}
