#if canImport(Glibc)
import Glibc
#endif
import CFrei0r
import CamfxCore

/// One frei0r plugin file, loaded with `dlopen`: its entry points, what it says of
/// itself (`f0r_get_plugin_info`) and of its parameters (`f0r_get_param_info`).
/// `f0r_init` runs once when it is loaded and `f0r_deinit` when the last reference
/// goes, before `dlclose`.
///
/// `@unchecked Sendable`: the entry points are plain C functions; a plugin's global
/// state is set up by `f0r_init` before anything else is called, and each instance is
/// used by one filter stage at a time.
final class Frei0rPlugin: @unchecked Sendable {
  /// A parameter as the plugin describes it, with the key camfx gives it.
  struct Parameter: Sendable {
    enum Kind: Sendable {
      case boolean, number, color, position, string
    }
    let index: Int32
    /// The plugin's own name ("Block width").
    let name: String
    /// The `--filter` key: the name in lower case, other characters than letters and
    /// digits as `_` ("block_width").
    let key: String
    let kind: Kind
    let explanation: String
  }

  let path: String
  /// The file name without `.so`: what `name=` takes.
  let fileName: String
  let name: String
  let author: String
  let explanation: String
  let colorModel: Int32
  let parameters: [Parameter]

  private let handle: UnsafeMutableRawPointer
  let construct: camfx_f0r_construct_t
  let destruct: camfx_f0r_destruct_t
  let setParameter: camfx_f0r_set_param_value_t
  let update: camfx_f0r_update_t
  private let deinitialise: camfx_f0r_deinit_t

  /// The folders plugins are looked for in: `FREI0R_PATH` (colon-separated) when set,
  /// else the frei0r specification's list plus Debian's multiarch folder.
  static var searchPath: [String] {
    if let value = getenv("FREI0R_PATH").map({ String(cString: $0) }), !value.isEmpty {
      return value.split(separator: ":").map(String.init)
    }
    var folders: [String] = []
    if let home = getenv("HOME").map({ String(cString: $0) }) { folders.append(home + "/.frei0r-1/lib") }
    return folders + ["/usr/local/lib/frei0r-1", "/usr/lib/frei0r-1", "/usr/lib/x86_64-linux-gnu/frei0r-1"]
  }

  /// The plugin files found on the search path, by file name (the first folder wins).
  static func installed() -> [(name: String, path: String)] {
    var found: [String: String] = [:]
    var order: [String] = []
    for folder in searchPath {
      guard let dir = opendir(folder) else { continue }
      defer { closedir(dir) }
      var names: [String] = []
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasSuffix(".so") { names.append(String(name.dropLast(3))) }
      }
      for name in names.sorted() where found[name] == nil {
        found[name] = folder + "/" + name + ".so"
        order.append(name)
      }
    }
    return order.sorted().map { ($0, found[$0] ?? "") }
  }

  /// Loads the plugin `name` from the search path.
  /// - Throws: `FilterError` when no such plugin is installed, or it is not a frei0r
  ///   filter camfx can run.
  static func load(named name: String) throws -> Frei0rPlugin {
    guard !name.contains("/"), let entry = installed().first(where: { $0.name == name }) else {
      let folders = searchPath.joined(separator: ":")
      throw FilterError(
        filter: "frei0r", key: "name", value: name,
        reason: "no such frei0r plugin in \(folders) (camfx filters lists them; Debian's are in frei0r-plugins)")
    }
    return try Frei0rPlugin(path: entry.path, fileName: name)
  }

  init(path: String, fileName: String) throws {
    func failure(_ reason: String) -> FilterError {
      FilterError(filter: "frei0r", key: "name", value: fileName, reason: reason)
    }
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      throw failure("cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "dlopen failed")")
    }
    func symbol<T>(_ name: String, as type: T.Type) -> T? {
      dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }
    guard let initialise = symbol("f0r_init", as: camfx_f0r_init_t.self),
      let deinitialise = symbol("f0r_deinit", as: camfx_f0r_deinit_t.self),
      let pluginInfo = symbol("f0r_get_plugin_info", as: camfx_f0r_get_plugin_info_t.self),
      let parameterInfo = symbol("f0r_get_param_info", as: camfx_f0r_get_param_info_t.self),
      let construct = symbol("f0r_construct", as: camfx_f0r_construct_t.self),
      let destruct = symbol("f0r_destruct", as: camfx_f0r_destruct_t.self),
      let setParameter = symbol("f0r_set_param_value", as: camfx_f0r_set_param_value_t.self),
      let update = symbol("f0r_update", as: camfx_f0r_update_t.self)
    else {
      dlclose(handle)
      throw failure("is not a frei0r plugin (\(path) lacks the f0r_* functions)")
    }
    guard initialise() != 0 else {
      dlclose(handle)
      throw failure("failed to initialise (f0r_init returned 0)")
    }
    var info = f0r_plugin_info_t()
    pluginInfo(&info)
    func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
    guard info.plugin_type == CAMFX_F0R_PLUGIN_TYPE_FILTER else {
      deinitialise()
      dlclose(handle)
      let kind = ["filter", "source", "two-input mixer", "three-input mixer"]
      let type = info.plugin_type >= 0 && info.plugin_type < 4 ? kind[Int(info.plugin_type)] : "plugin of type \(info.plugin_type)"
      throw failure("is a frei0r \(type), not a filter")
    }
    guard [CAMFX_F0R_COLOR_MODEL_BGRA8888, CAMFX_F0R_COLOR_MODEL_RGBA8888, CAMFX_F0R_COLOR_MODEL_PACKED32].contains(info.color_model)
    else {
      deinitialise()
      dlclose(handle)
      throw failure("uses colour model \(info.color_model), which camfx does not know")
    }
    var parameters: [Parameter] = []
    for index in 0..<max(0, info.num_params) {
      var p = f0r_param_info_t()
      parameterInfo(&p, index)
      let kinds: [Int32: Parameter.Kind] = [
        CAMFX_F0R_PARAM_BOOL: .boolean, CAMFX_F0R_PARAM_DOUBLE: .number, CAMFX_F0R_PARAM_COLOR: .color,
        CAMFX_F0R_PARAM_POSITION: .position, CAMFX_F0R_PARAM_STRING: .string,
      ]
      guard let kind = kinds[p.type] else { continue }  // a type from a newer spec: not offered
      let name = text(p.name)
      let key = String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
      parameters.append(Parameter(index: index, name: name, key: key, kind: kind, explanation: text(p.explanation)))
    }
    self.handle = handle
    self.path = path
    self.fileName = fileName
    self.name = text(info.name)
    self.author = text(info.author)
    self.explanation = text(info.explanation)
    self.colorModel = info.color_model
    self.parameters = parameters
    self.construct = construct
    self.destruct = destruct
    self.setParameter = setParameter
    self.update = update
    self.deinitialise = deinitialise
  }

  deinit {
    deinitialise()
    dlclose(handle)
  }

  /// The option table of this plugin: `name`, then a key per parameter.
  var options: [FilterOption] {
    [FilterOption("name", .string, required: true, help: "the plugin's file name without .so")]
      + parameters.map { p in
        let help = p.explanation.isEmpty ? p.name : p.explanation
        switch p.kind {
        case .boolean: return FilterOption(p.key, .boolean, help: help)
        case .number: return FilterOption(p.key, .number(0...1), help: help)
        case .color: return FilterOption(p.key, .color, help: help)
        case .position: return FilterOption(p.key, .string, help: help + " (X,Y, each 0...1)")
        case .string: return FilterOption(p.key, .string, help: help)
        }
      }
  }
}
