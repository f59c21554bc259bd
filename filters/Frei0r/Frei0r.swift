#if canImport(Glibc)
import Glibc
#endif
import CFrei0r
import CamfxCore

/// Runs a frei0r filter plugin: the C plugin standard ffmpeg, GStreamer and MLT load
/// (Debian's `frei0r-plugins` has over a hundred), and the way to add a filter in C,
/// C++ or Swift (`@_cdecl`) without rebuilding camfx (see `examples/frei0r-plugin`).
///
///     camfx snapshot --filter frei0r=name=pixeliz0r:block_width=0.05 -o blocks.png
///
/// `name` is the plugin's file name without `.so`, looked for in `FREI0R_PATH`
/// (colon-separated) or else `~/.frei0r-1/lib`, `/usr/local/lib/frei0r-1` and
/// `/usr/lib/frei0r-1`. Every other key is one of the plugin's parameters, named as
/// `f0r_get_param_info` names it, in lower case with `_` for other characters than
/// letters and digits (`Block width` → `block_width`); numbers are in 0...1, as the
/// frei0r standard has them, colours as for every filter, positions as `X,Y`.
/// `camfx filters` lists the installed plugins with their keys.
///
/// The plugin gets whole frames, rows packed, 16-byte aligned, in the colour model it
/// asks for (BGRA as is; RGBA with red and blue swapped both ways), and a width and
/// height that are multiples of 8, as the standard requires. The frame's timestamp in
/// seconds is its `time`.
public struct Frei0r: ResizingVideoFilter {
  public static let name = "frei0r"
  public static let summary = "Runs a frei0r filter plugin (name=PLUGIN, then the plugin's own keys)."
  public static let example = "camfx snapshot --filter frei0r=name=invert0r -o inverted.png"
  /// The keys every plugin takes; each plugin adds its parameters.
  public static let options = [FilterOption("name", .string, required: true, help: "the plugin's file name without .so")]

  /// The registry entry: it loads the plugin a spec names and checks the spec's keys
  /// against that plugin's parameters.
  public static let descriptor = FilterDescriptor(
    name: name, summary: summary, example: example, options: options, catalogDetail: { catalog() }
  ) { spec in
    guard let pluginName = spec.arguments.last(where: { $0.key == "name" })?.value else {
      throw FilterError(filter: name, key: "name", reason: "required key missing")
    }
    let plugin = try Frei0rPlugin.load(named: pluginName)
    return try Frei0r(plugin: plugin, options: FilterOptions(filter: name, table: plugin.options, arguments: spec.arguments))
  }

  /// Needs a plugin: use `descriptor` (what the registry holds).
  public init(options: FilterOptions) throws {
    guard let pluginName = options.string("name") else {
      throw FilterError(filter: Self.name, key: "name", reason: "required key missing")
    }
    let plugin = try Frei0rPlugin.load(named: pluginName)
    try self.init(
      plugin: plugin,
      options: FilterOptions(filter: Self.name, table: plugin.options, arguments: [("name", pluginName)]))
  }

  let plugin: Frei0rPlugin
  /// The parameter values to set, by parameter.
  private let values: [(Frei0rPlugin.Parameter, ParameterValue)]
  private var instance: Frei0rInstance?

  enum ParameterValue: Sendable {
    case number(Double)
    case color(BGRA)
    case position(x: Double, y: Double)
    case string(String)
  }

  init(plugin: Frei0rPlugin, options: FilterOptions) throws {
    self.plugin = plugin
    var values: [(Frei0rPlugin.Parameter, ParameterValue)] = []
    for parameter in plugin.parameters where options.isSet(parameter.key) {
      switch parameter.kind {
      case .boolean: values.append((parameter, .number(options.boolean(parameter.key) == true ? 1 : 0)))
      case .number: values.append((parameter, .number(options.number(parameter.key) ?? 0)))
      case .color: values.append((parameter, .color(options.color(parameter.key) ?? BGRA(r: 0, g: 0, b: 0))))
      case .string: values.append((parameter, .string(options.string(parameter.key) ?? "")))
      case .position:
        let text = options.string(parameter.key) ?? ""
        let parts = text.split(separator: ",").compactMap { Double(String($0.filter { $0 != " " })) }
        guard parts.count == 2, parts.allSatisfy({ (0...1).contains($0) }) else {
          throw FilterError(filter: Self.name, key: parameter.key, value: text, reason: "expected X,Y with each in 0...1")
        }
        values.append((parameter, .position(x: parts[0], y: parts[1])))
      }
    }
    self.values = values
  }

  /// - Throws: `FilterError` for a size that is not a multiple of 8, or a plugin that
  ///   cannot make an instance.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    guard input.width % 8 == 0, input.height % 8 == 0 else {
      throw FilterError(
        filter: Self.name, key: "name", value: plugin.fileName,
        reason: "frei0r plugins need a width and height that are multiples of 8, got \(input) (scale, crop or pad first)")
    }
    guard let handle = plugin.construct(UInt32(input.width), UInt32(input.height)) else {
      throw FilterError(filter: Self.name, key: "name", value: plugin.fileName, reason: "could not make an instance for \(input)")
    }
    let instance = Frei0rInstance(plugin: plugin, handle: handle, geometry: input)
    for (parameter, value) in values { instance.set(value, for: parameter) }
    self.instance = instance
    return input
  }

  public func process(_ source: PixelBuffer, into destination: inout PixelBuffer) {
    guard let instance else { preconditionFailure("frei0r is not configured") }
    instance.run(source, into: destination)
  }

  /// The installed plugins as `camfx filters` lists them, with their keys.
  static func catalog() -> String {
    let installed = Frei0rPlugin.installed()
    guard !installed.isEmpty else {
      return "  plugins: none found in \(Frei0rPlugin.searchPath.joined(separator: ":")) (Debian: apt install frei0r-plugins)\n"
    }
    var out = "  plugins in \(Frei0rPlugin.searchPath.joined(separator: ":")):\n"
    for (name, path) in installed {
      guard let plugin = try? Frei0rPlugin(path: path, fileName: name) else { continue }  // sources, mixers
      let about = plugin.explanation.isEmpty ? plugin.name : plugin.explanation
      out += "    \(name): \(about)\n"
      for option in plugin.options.dropFirst() {
        out += "      \(option.key)  \(option.kind.label)  \(option.help)\n"
      }
    }
    return out
  }
}

/// One constructed plugin instance and the packed frames it reads and writes when the
/// pipeline's frames are not packed (rows padded) or not in the plugin's colour model.
///
/// `@unchecked Sendable`: used by one filter stage at a time (see the filters' scratch).
final class Frei0rInstance: @unchecked Sendable {
  let plugin: Frei0rPlugin
  let handle: f0r_instance_t
  let geometry: FrameGeometry
  private let swapsRedAndBlue: Bool
  private let stagingIn: UnsafeMutablePointer<UInt32>
  private let stagingOut: UnsafeMutablePointer<UInt32>

  init(plugin: Frei0rPlugin, handle: f0r_instance_t, geometry: FrameGeometry) {
    self.plugin = plugin
    self.handle = handle
    self.geometry = geometry
    swapsRedAndBlue = plugin.colorModel == CAMFX_F0R_COLOR_MODEL_RGBA8888
    let pixels = geometry.width * geometry.height
    stagingIn = UnsafeMutableRawPointer.allocate(byteCount: pixels * 4, alignment: 64).bindMemory(to: UInt32.self, capacity: pixels)
    stagingOut = UnsafeMutableRawPointer.allocate(byteCount: pixels * 4, alignment: 64).bindMemory(to: UInt32.self, capacity: pixels)
  }

  deinit {
    plugin.destruct(handle)
    stagingIn.deallocate()
    stagingOut.deallocate()
  }

  func set(_ value: Frei0r.ParameterValue, for parameter: Frei0rPlugin.Parameter) {
    switch value {
    case .number(var number):
      plugin.setParameter(handle, &number, parameter.index)
    case .color(let c):
      var color = f0r_param_color_t(r: Float(c.r) / 255, g: Float(c.g) / 255, b: Float(c.b) / 255)
      plugin.setParameter(handle, &color, parameter.index)
    case .position(let x, let y):
      var position = f0r_param_position_t(x: x, y: y)
      plugin.setParameter(handle, &position, parameter.index)
    case .string(let text):
      // The plugin copies the string during the call (the standard says so).
      text.withCString { c in
        var pointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: c)
        plugin.setParameter(handle, &pointer, parameter.index)
      }
    }
  }

  private func isPacked(_ frame: PixelBuffer) -> Bool {
    frame.bytesPerRow == frame.width * 4 && frame.withUnsafeBytes { Int(bitPattern: $0) % 16 == 0 }
  }

  func run(_ source: PixelBuffer, into destination: PixelBuffer) {
    let width = geometry.width, height = geometry.height
    let direct = !swapsRedAndBlue
    let input: UnsafePointer<UInt32>
    if direct && isPacked(source) {
      input = source.withUnsafeBytes { UnsafePointer($0.assumingMemoryBound(to: UInt32.self)) }
    } else {
      copy(from: source, into: stagingIn)
      input = UnsafePointer(stagingIn)
    }
    let writesDestination = direct && isPacked(destination)
    let output = writesDestination ? destination.withUnsafeMutableBytes { $0.assumingMemoryBound(to: UInt32.self) } : stagingOut
    plugin.update(handle, source.presentationTime.seconds, input, output)
    guard !writesDestination else { return }
    destination.withUnsafeMutableBytes { base in
      for y in 0..<height {
        let row = (base + y * destination.bytesPerRow).assumingMemoryBound(to: UInt32.self)
        let from = stagingOut + y * width
        if swapsRedAndBlue {
          for x in 0..<width { row[x] = Self.swapRedAndBlue(from[x]) }
        } else {
          row.update(from: from, count: width)
        }
      }
    }
  }

  private func copy(from frame: PixelBuffer, into packed: UnsafeMutablePointer<UInt32>) {
    let width = geometry.width
    frame.withUnsafeBytes { base in
      for y in 0..<geometry.height {
        let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
        let to = packed + y * width
        if swapsRedAndBlue {
          for x in 0..<width { to[x] = Self.swapRedAndBlue(row[x]) }
        } else {
          to.update(from: row, count: width)
        }
      }
    }
  }

  @inline(__always)
  static func swapRedAndBlue(_ pixel: UInt32) -> UInt32 {
    pixel & 0xFF00_FF00 | (pixel & 0xFF) << 16 | (pixel >> 16) & 0xFF
  }
}
