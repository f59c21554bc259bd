// A frei0r filter plugin written in Swift: the same C functions as red_level.c, exported
// with @_cdecl. It inverts red, green and blue and keeps alpha.
//
//   swiftc -emit-library -O -I /path/to/camfx/Sources/CFrei0r -module-name SwiftInvert \
//     swift_invert.swift -o swift_invert.so
//   FREI0R_PATH=$PWD camfx snapshot --filter frei0r=name=swift_invert -o inverted.png
//
// CFrei0r is camfx's module map for frei0r.h (Debian's frei0r-plugins-dev). The library
// needs the Swift runtime, which camfx itself loads.
import CFrei0r

private let pluginName: StaticString = "swift_invert"
private let author: StaticString = "camfx"
private let explanation: StaticString = "Inverts red, green and blue (a plugin in Swift)"

private func cString(_ s: StaticString) -> UnsafePointer<CChar> {
  UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// One instance: how many pixels a frame has.
private final class Instance {
  let pixels: Int
  init(pixels: Int) { self.pixels = pixels }
}

@_cdecl("f0r_init") public func f0r_init() -> Int32 { 1 }
@_cdecl("f0r_deinit") public func f0r_deinit() {}

@_cdecl("f0r_get_plugin_info")
public func f0r_get_plugin_info(_ info: UnsafeMutablePointer<f0r_plugin_info_t>) {
  info.pointee.name = cString(pluginName)
  info.pointee.author = cString(author)
  info.pointee.plugin_type = F0R_PLUGIN_TYPE_FILTER
  info.pointee.color_model = F0R_COLOR_MODEL_BGRA8888
  info.pointee.frei0r_version = FREI0R_MAJOR_VERSION
  info.pointee.major_version = 1
  info.pointee.minor_version = 0
  info.pointee.num_params = 0
  info.pointee.explanation = cString(explanation)
}

@_cdecl("f0r_get_param_info")
public func f0r_get_param_info(_ info: UnsafeMutablePointer<f0r_param_info_t>, _ index: Int32) {}

@_cdecl("f0r_construct")
public func f0r_construct(_ width: UInt32, _ height: UInt32) -> f0r_instance_t? {
  Unmanaged.passRetained(Instance(pixels: Int(width) * Int(height))).toOpaque()
}

@_cdecl("f0r_destruct")
public func f0r_destruct(_ instance: f0r_instance_t?) {
  guard let instance else { return }
  Unmanaged<Instance>.fromOpaque(instance).release()
}

@_cdecl("f0r_set_param_value")
public func f0r_set_param_value(_ instance: f0r_instance_t?, _ param: f0r_param_t?, _ index: Int32) {}

@_cdecl("f0r_get_param_value")
public func f0r_get_param_value(_ instance: f0r_instance_t?, _ param: f0r_param_t?, _ index: Int32) {}

@_cdecl("f0r_update")
public func f0r_update(
  _ instance: f0r_instance_t?, _ time: Double, _ inframe: UnsafePointer<UInt32>?, _ outframe: UnsafeMutablePointer<UInt32>?
) {
  guard let instance, let inframe, let outframe else { return }
  let pixels = Unmanaged<Instance>.fromOpaque(instance).takeUnretainedValue().pixels
  for i in 0..<pixels { outframe[i] = inframe[i] ^ 0x00FF_FFFF }  // B, G, R inverted; A kept
}
