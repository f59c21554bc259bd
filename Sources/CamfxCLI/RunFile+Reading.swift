import ArgumentParser
import Camfx
import CamfxArchive
import CamfxCore
import CamfxMedia
import CamfxMosaic
import CamfxPreview
import Foundation
import Yams

extension RunFile {
  /// The top-level keys of a file.
  static let keys = ["cameras", "preview", "mosaic"]
  /// Camera keys that are options of `record` but belong to the whole run.
  static let runWideKeys = [
    "preview": "the preview server is set once, at the top of the file (preview: ADDRESS)",
    "quiet": "the status line is camfx run's (camfx run --quiet)",
    "layout": "a camera is one picture; the file's mosaic: puts cameras in one (mosaic: {layout: ...})",
    "mosaic-size": "a camera is one picture; the file's mosaic: has the size of the picture of several (mosaic: {size: ...})",
  ]

  /// Reads and checks the file at `path`.
  /// - Parameter keeping: cameras already recording, by name: one whose options are
  ///   the same in the file is taken as it is, not set up anew (its files exist now, and
  ///   its names' time fields were filled in when it started).
  /// - Throws: `RunFileError`, the first problem found.
  static func read(path: String, keeping: [String: Camera] = [:]) throws(RunFileError) -> RunFile {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw RunFileError(path: path, line: nil, key: nil, message: "cannot be read: \(Self.unreadable(path))")
    }
    return try RunFile(yaml: text, path: path, keeping: keeping)
  }

  /// Why `path` could not be read as text: the system's reason, or what it is instead.
  private static func unreadable(_ path: String) -> String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      return "it is a directory"
    }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return String(cString: strerror(errno)) }
    close(fd)
    return "it is not UTF-8 text"
  }

  /// Checks `yaml`, the text of the file named `path` (for messages).
  init(yaml: String, path: String, keeping: [String: Camera] = [:]) throws(RunFileError) {
    let reader = RunFileReader(path: path, keeping: keeping)
    let root: Node?
    do {
      root = try Yams.compose(yaml: yaml)
    } catch {
      throw reader.syntaxError(error, in: yaml)
    }
    guard let root else { throw reader.error(1, "cameras", "no cameras: the file is empty") }
    guard case .mapping(let top) = root else {
      throw reader.error(reader.line(root), nil, "expected a map of cameras:, preview: and mosaic:, found \(reader.what(root))")
    }
    for (key, _) in top {
      let name = key.string ?? ""
      if !Self.keys.contains(name) {
        throw reader.error(reader.line(key), name, reader.unknown("key", name, among: Self.keys))
      }
    }
    guard let camerasNode = top["cameras"] else {
      throw reader.error(reader.line(root), "cameras", "no cameras: add cameras: with one map of record options per camera")
    }
    guard case .mapping(let cameraMap) = camerasNode else {
      throw reader.error(reader.line(camerasNode), "cameras", "expected a map of cameras by name, found \(reader.what(camerasNode))")
    }
    guard !cameraMap.isEmpty else {
      throw reader.error(reader.line(camerasNode), "cameras", "no cameras: give at least one, by name")
    }
    var cameras: [Camera] = []
    for (nameNode, options) in cameraMap {
      cameras.append(try reader.camera(named: nameNode, options: options))
    }
    try reader.requireDistinctDevices(cameras)
    let preview = try top["preview"].map { node throws(RunFileError) -> PreviewAddress in
      let text = try reader.scalar(node, key: "preview")
      do {
        return try PreviewAddress(parsing: text)
      } catch {
        throw reader.error(reader.line(node), "preview", "\(error)")
      }
    }
    if let node = top["preview"], !cameras.contains(where: { !$0.setup.configuration.video.copiesPackets }) {
      throw reader.error(reader.line(node), "preview", "every camera copies packets: the preview has no pictures to show")
    }
    let mosaicKey = top.keys.first { $0.string == "mosaic" }
    let mosaic = try mosaicKey.map { key throws(RunFileError) in
      try reader.mosaic(top[key] ?? key, at: reader.line(key), cameras: cameras)
    }
    try reader.requireDistinctOutputs(cameras, mosaic: mosaic)
    self.init(path: path, cameras: cameras, preview: preview, mosaic: mosaic)
  }
}

/// The reading of one file: where each key is, and the messages that name it.
private struct RunFileReader {
  let path: String
  let keeping: [String: RunFile.Camera]
  let catalog = RecordOptionCatalog.record

  func error(_ line: Int?, _ key: String?, _ message: String) -> RunFileError {
    RunFileError(path: path, line: line, key: key, message: message)
  }

  /// The line `node` starts on (Yams counts from 1).
  func line(_ node: Node) -> Int { node.mark?.line ?? 1 }

  /// What a node is, for "expected ..., found a list".
  func what(_ node: Node) -> String {
    switch node {
    case .scalar(let scalar): node.null != nil && scalar.style == .plain ? "nothing" : "'\(scalar.string)'"
    case .mapping: "a map"
    case .sequence: "a list"
    case .alias: "an alias"
    }
  }

  func unknown(_ kind: String, _ name: String, among names: [String], suggestion: String? = nil) -> String {
    let close = suggestion ?? names.map { ($0, RecordOptionCatalog.editDistance($0, name)) }.filter { $0.1 < 4 }
      .min { $0.1 < $1.1 }?.0
    let known = names.isEmpty ? " (a camera's keys are camfx record's options: camfx record --help)"
      : " (expected \(names.joined(separator: ", ")))"
    return "unknown \(kind)" + (close.map { " (did you mean '\($0)'?)" } ?? known)
  }

  /// The text of a scalar, or an error naming `key` when `node` is a list or a map.
  func scalar(_ node: Node, key: String) throws(RunFileError) -> String {
    guard case .scalar(let scalar) = node else {
      throw error(line(node), key, "expected a value, found \(what(node))")
    }
    guard node.null == nil || scalar.style != .plain else { throw error(line(node), key, "missing value") }
    return scalar.string
  }

  /// A YAML syntax error as one line.
  func syntaxError(_ error: any Error, in yaml: String) -> RunFileError {
    guard let yamlError = error as? YamlError else { return self.error(nil, "YAML", "\(error)") }
    switch yamlError {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      // "found unexpected end of stream (while scanning a quoted scalar from line 3)"
      let from = context.map { " (\($0.text) from line \($0.mark.line))" } ?? ""
      return self.error(mark.line, "YAML", problem + from)
    case .duplicatedKeysInMapping(let duplicates, let context):
      let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
      return self.error(context.mark.line, "YAML", "\(names) given twice in one map")
    case .reader(let problem, let offset, _, _):
      let line = offset.map { yaml.prefix($0).filter { $0 == "\n" }.count + 1 }
      return self.error(line, "YAML", problem)
    default:
      return self.error(nil, "YAML", "\(yamlError)")
    }
  }

  // MARK: Cameras

  /// Where each of a camera's keys is, to put a message back on its line.
  struct KeyLine {
    var key: String
    /// The option's long name (`output` for `o`).
    var option: String
    var line: Int
  }

  /// One camera's map, as `camfx record` arguments parsed and set up by `RecordCommand`.
  func camera(named nameNode: Node, options: Node) throws(RunFileError) -> RunFile.Camera {
    let name = try scalar(nameNode, key: "cameras")
    let path = "cameras.\(name)"
    let allowed = name.unicodeScalars.allSatisfy {
      CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "."
    }
    guard !name.isEmpty, allowed else {
      throw error(line(nameNode), path, "a camera's name is letters, digits, '-', '_' and '.' (it names the camera in a mosaic layout)")
    }
    guard case .mapping(let map) = options else {
      throw error(line(options), path, "expected a map of record options (source:, output:, ...), found \(what(options))")
    }
    var arguments: [String] = []
    var keys: [KeyLine] = []
    for (keyNode, value) in map {
      let key = keyNode.string ?? ""
      let at = line(keyNode)
      if let reason = RunFile.runWideKeys[key] { throw error(at, "\(path).\(key)", reason) }
      guard let entry = catalog.entry(key) else {
        throw error(at, "\(path).\(key)", unknown("option", key, among: [], suggestion: catalog.suggestion(for: key)))
      }
      keys.append(KeyLine(key: key, option: entry.name, line: at))
      arguments += try self.arguments(for: entry, value: value, key: "\(path).\(key)")
    }
    // `record --source A --source B` is several cameras; in a file each has its name.
    if arguments.filter({ $0.hasPrefix("--source=") }).count > 1, let key = keys.first(where: { $0.option == "source" }) {
      throw error(key.line, "\(path).\(key.key)", "one camera has one source; give each camera its own name under cameras:")
    }
    var optionKeys: [String: (key: String, line: Int)] = [:]
    for key in keys where optionKeys[key.option] == nil { optionKeys[key.option] = (key.key, key.line) }
    if var kept = keeping[name], kept.arguments == arguments {
      kept.line = line(nameNode)
      kept.optionKeys = optionKeys
      return kept
    }
    /// The message on the line of the key it names, else of `option`'s, else the camera's.
    func keyed(_ message: String, option: String? = nil) -> RunFileError {
      guard let mentioned = mentionedKey(in: message, keys: keys) ?? keys.first(where: { $0.option == option }) else {
        return error(line(nameNode), path, message)
      }
      return error(mentioned.line, "\(path).\(mentioned.key)", message)
    }
    let command: RecordCommand
    do {
      command = try RecordCommand.parse(arguments)
    } catch {
      throw keyed(Self.parserMessage(error))
    }
    guard !command.source.isEmpty || command.input != nil else {
      throw error(line(nameNode), path, "no source: give source (/dev/videoN, testsrc or a PNG) or input (a movie)")
    }
    guard !command.outputOptions.output.isEmpty || command.eventOptions.preRecord != nil else {
      throw error(line(nameNode), path, "no output: give output (a file, a URL, or a list of them), or pre-record for event clips")
    }
    var setup: RecordingSetup
    do {
      setup = try command.setup()
    } catch {
      // Errors that name no option, by what they are about.
      let option: String? =
        switch error {
        case is FilterError: "filter"
        case is OutputFileError, is MediaSettingsError: "output"
        default: nil
        }
      throw keyed("\(error)", option: option)
    }
    // Cameras take their stills in the same moment (SIGUSR1) and may make clips in the
    // same second: the names they take by default start with the camera's own.
    if command.still == nil { setup.stillPattern = Self.prefixed(setup.stillPattern, with: name) }
    if command.eventOptions.eventOutput == nil, var events = setup.configuration.events {
      events.pattern = Self.prefixed(events.pattern, with: name)
      setup.configuration.events = events
    }
    return RunFile.Camera(
      name: name, arguments: arguments, command: command, setup: setup, line: line(nameNode), optionKeys: optionKeys)
  }

  /// The arguments one key gives.
  func arguments(for entry: RecordOptionCatalog.Entry, value: Node, key: String) throws(RunFileError) -> [String] {
    switch entry.kind {
    case .flag(let inverse):
      guard case .scalar = value, let given = value.bool else {
        throw error(line(value), key, "expected true or false, found \(what(value))")
      }
      if given { return ["--\(entry.name)"] }
      return inverse.map { ["--\($0)"] } ?? []
    case .option(let repeats):
      if case .sequence(let list) = value {
        guard repeats else {
          throw error(line(value), key, "takes one value, not a list (lists are for options that repeat, like filter and output)")
        }
        var arguments: [String] = []
        for item in list { arguments.append("--\(entry.name)=\(try scalar(item, key: key))") }
        return arguments
      }
      return ["--\(entry.name)=\(try scalar(value, key: key))"]
    }
  }

  /// The key whose option a message names first (`--fps`, `'--fps <n>'`), if any.
  func mentionedKey(in message: String, keys: [KeyLine]) -> KeyLine? {
    var best: (position: String.Index, key: KeyLine)? = nil
    for key in keys {
      var search = message.startIndex..<message.endIndex
      while let found = message.range(of: "--\(key.option)", range: search) {
        let next = found.upperBound < message.endIndex ? message[found.upperBound] : " "
        if !(next.isLetter || next.isNumber || next == "-") {
          if best == nil || found.lowerBound < best!.position { best = (found.lowerBound, key) }
          break
        }
        search = found.upperBound..<message.endIndex
      }
    }
    return best?.key
  }

  /// `dir/still-%H%M%S.png` → `dir/front-still-%H%M%S.png`.
  static func prefixed(_ pattern: String, with name: String) -> String {
    guard let slash = pattern.lastIndex(of: "/") else { return "\(name)-\(pattern)" }
    return String(pattern[...slash]) + "\(name)-" + pattern[pattern.index(after: slash)...]
  }

  /// ArgumentParser's message as a camfx one: "Error: The value ..." → "the value ...".
  static func parserMessage(_ error: any Error) -> String {
    var text = String(RecordCommand.message(for: error).split(whereSeparator: \.isNewline).first ?? "")
    if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
    if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
      text = first.lowercased() + text.dropFirst()
    }
    return text
  }

  /// Two cameras cannot record one device (by any path to it: `/dev/v4l/by-id/...`).
  func requireDistinctDevices(_ cameras: [RunFile.Camera]) throws(RunFileError) {
    var seen: [String: RunFile.Camera] = [:]
    for camera in cameras {
      guard let source = camera.command.source.first, let device = (try? SourceSpec(parsing: source))?.exclusiveDevice else {
        continue
      }
      if let first = seen[device] {
        throw error(
          camera.line(of: "source"), camera.keyPath(of: "source"),
          "'\(source)' is also the source of camera '\(first.name)' (line \(first.line(of: "source"))); a device records for one camera only")
      }
      seen[device] = camera
    }
  }

  /// No two cameras (or a camera and the mosaic) write one file or one URL: their
  /// outputs, event clips, stills and `stats-json`, each by any spelling.
  func requireDistinctOutputs(_ cameras: [RunFile.Camera], mosaic: MosaicDescription?) throws(RunFileError) {
    struct Written {
      var owner: String
      /// Where it is named: `cameras.front.output`.
      var key: String
      var line: Int
      var name: String
      /// The same file or URL has the same identity.
      var identity: String
    }
    func targets(_ plan: RecordingOutputPlan?, owner: String, key: String, line: Int) -> [Written] {
      (plan?.targets ?? []).map { target in
        Written(owner: owner, key: key, line: line, name: target.displayName, identity: target.identity)
      }
    }
    var written: [Written] = []
    for camera in cameras {
      let owner = "camera '\(camera.name)'"
      written += targets(camera.setup.configuration.outputs, owner: owner, key: camera.keyPath(of: "output"), line: camera.line(of: "output"))
      func file(_ name: String, option: String) -> Written {
        Written(
          owner: owner, key: camera.keyPath(of: option), line: camera.line(of: option), name: name,
          identity: OutputFile.identity(of: name))
      }
      if let events = camera.setup.configuration.events {
        written.append(file(events.pattern, option: camera.optionKeys["event-output"] == nil ? "pre-record" : "event-output"))
      }
      if camera.setup.configuration.video.copiesPackets == false { written.append(file(camera.setup.stillPattern, option: "still")) }
      if let stats = camera.setup.statsFile { written.append(file(stats.path, option: "stats-json")) }
    }
    if let mosaic { written += targets(mosaic.outputs, owner: "the mosaic", key: "mosaic.output", line: mosaic.line) }
    // Archive keys are names relative to each camera's folder: two folders under one
    // prefix could take each other's keys.
    var archived: [String: (camera: RunFile.Camera, folder: String)] = [:]
    for camera in cameras {
      guard let plan = camera.setup.archive else { continue }
      let url = plan.options.destination.url, folder = S3Archive.absolute(plan.options.folder)
      if let first = archived[url], first.folder != folder {
        throw error(
          camera.line(of: "archive"), camera.keyPath(of: "archive"),
          "\(url) takes the files of camera '\(first.camera.name)' (line \(first.camera.line(of: "archive"))) from another folder; "
            + "give each camera a prefix of its own (s3://BUCKET/PREFIX/\(camera.name))")
      }
      archived[url] = (camera, folder)
    }
    var seen: [String: Written] = [:]
    for item in written {
      if let first = seen[item.identity], first.owner != item.owner {
        throw error(
          item.line, item.key, "'\(item.name)' is written by \(first.owner) too (line \(first.line)); each file belongs to one camera")
      }
      seen[item.identity] = item
    }
  }

  // MARK: Mosaic

  /// - Parameter keyLine: the line of `mosaic:`.
  func mosaic(_ node: Node, at keyLine: Int, cameras: [RunFile.Camera]) throws(RunFileError) -> MosaicDescription {
    guard case .mapping(let map) = node else {
      throw error(line(node), "mosaic", "expected a map (layout:, output:, ...), found \(what(node))")
    }
    // Its own keys, and the record options of its encoding and outputs, as a camera's.
    var recordArguments: [String] = []
    for (key, value) in map {
      let name = key.string ?? ""
      if MosaicDescription.keys.contains(name) { continue }
      guard let entry = catalog.entry(name), !MosaicDescription.notRecordOptions.contains(entry.name) else {
        throw error(line(key), "mosaic.\(name)", unknown("key", name, among: MosaicDescription.keys))
      }
      recordArguments += try arguments(for: entry, value: value, key: "mosaic.\(name)")
    }
    let known = cameras.map(\.name)
    var names = known
    if let list = map["cameras"] {
      guard case .sequence(let items) = list else {
        throw error(line(list), "mosaic.cameras", "expected a list of camera names, found \(what(list))")
      }
      names = []
      for item in items {
        let name = try scalar(item, key: "mosaic.cameras")
        guard known.contains(name) else {
          throw error(line(item), "mosaic.cameras", "no camera '\(name)' (the cameras are \(known.joined(separator: ", ")))")
        }
        names.append(name)
      }
    }
    guard let layoutNode = map["layout"] else {
      throw error(keyLine, "mosaic", "no layout: give layout: grid, hstack, vstack or pip=CAMERA")
    }
    let layoutText = try scalar(layoutNode, key: "mosaic.layout")
    let layout: MosaicLayout
    do {
      layout = try MosaicLayout(parsing: layoutText, cameras: names)
    } catch {
      throw self.error(line(layoutNode), "mosaic.layout", "\(error)")
    }
    var size = MosaicDescription.defaultSize
    if let sizeNode = map["size"] {
      let text = try scalar(sizeNode, key: "mosaic.size")
      do {
        size = try FrameGeometry(parsing: text)
      } catch {
        throw self.error(line(sizeNode), "mosaic.size", "\(error)")
      }
    }
    guard let outputNode = map["output"] else {
      throw error(keyLine, "mosaic", "no output: give output: a file, a URL, or a list of them")
    }
    var outputs: [String] = []
    if case .sequence(let items) = outputNode {
      for item in items { outputs.append(try scalar(item, key: "mosaic.output")) }
    } else {
      outputs = [try scalar(outputNode, key: "mosaic.output")]
    }
    let plan: RecordingOutputPlan
    do {
      plan = try RecordingOutputPlan(names: outputs, overwrite: true)
    } catch {
      throw self.error(line(outputNode), "mosaic.output", "\(error)")
    }
    var audio: String? = nil
    if let audioNode = map["audio"] {
      let name = try scalar(audioNode, key: "mosaic.audio")
      guard names.contains(name) else {
        throw error(line(audioNode), "mosaic.audio", "no camera '\(name)' in the mosaic (it shows \(names.joined(separator: ", ")))")
      }
      audio = name
    }
    return MosaicDescription(
      cameras: names, layout: layout, size: size, outputs: plan, audio: audio, recordArguments: recordArguments, line: keyLine)
  }
}
