import Camfx
import CamfxMedia
import CamfxPreview
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `camfx record --source A --source B …`: several cameras in one process, each into
/// its own `-o`, or all in one picture with `--layout`.
extension RecordCommand {
  /// The names the cameras go by (on their cards, in messages, in the preview's
  /// paths): each source's file name without its extension (`/dev/video0` → `video0`,
  /// `photo.png` → `photo`), other characters than letters, digits, `-`, `_` and `.` as
  /// `_`, with `-2`, `-3` … after a name that came before (`mosaic` is the picture's).
  static func cameraNames(_ sources: [String]) -> [String] {
    var names: [String] = []
    for source in sources {
      let base = (source as NSString).lastPathComponent
      let stem = String((base as NSString).deletingPathExtension.prefix(48)).map { c -> Character in
        c.isASCII && (c.isLetter || c.isNumber || "-_.".contains(c)) ? c : "_"
      }
      let name = stem.isEmpty || stem.allSatisfy({ $0 == "." }) ? "camera" : String(stem)
      var unique = name
      var n = 2
      while names.contains(unique) || unique == RunFile.mosaicName {
        unique = "\(name)-\(n)"
        n += 1
      }
      names.append(unique)
    }
    return names
  }

  /// The size of a `layout` picture of cameras whose pictures are `sizes`: each cell
  /// the largest camera picture, so that no camera is scaled up (even sides).
  static func mosaicSize(_ layout: MosaicLayout, cameras sizes: [FrameGeometry]) -> FrameGeometry {
    let cellWidth = sizes.map(\.width).max() ?? 2
    let cellHeight = sizes.map(\.height).max() ?? 2
    let count = sizes.count
    let size: (Int, Int)
    switch layout {
    case .hstack: size = (cellWidth * count, cellHeight)
    case .vstack: size = (cellWidth, cellHeight * count)
    case .grid:
      let columns = Int(Double(count).squareRoot().rounded(.up))
      let rows = (count + columns - 1) / columns
      size = (cellWidth * columns, cellHeight * rows)
    case .pip: size = (cellWidth, cellHeight)
    }
    let even = { (n: Int) in min(FrameGeometry.maximumSide - FrameGeometry.maximumSide % 2, n + n % 2) }
    return FrameGeometry(width: even(size.0), height: even(size.1))
  }

  /// Checks the sources: two cameras on one device would fight over it.
  private func requireDistinctCameras(_ specs: [SourceSpec]) throws {
    var seen: [String: String] = [:]
    for spec in specs {
      guard let key = spec.exclusiveDevice else { continue }
      let device = spec.description
      if let first = seen[key] {
        throw RecordingOptionError(
          first == device ? "--source \(device) is given twice" : "--source \(first) and --source \(device) are the same camera")
      }
      seen[key] = device
    }
  }

  /// A camera of several: the source options (`--size`, `--fps`, the camera options, the
  /// reconnect time) of `setup`, nothing else.
  private func cameraConfiguration(_ spec: SourceSpec, like setup: RecordingSetup) -> RecordingPipeline.Configuration {
    let shared = setup.configuration
    var camera = RecordingPipeline.Configuration(source: .live(spec))
    // A picture or a movie has its own size (the mosaic scales it); --size is the cameras'.
    if !spec.hasOwnSize { camera.size = shared.size }
    camera.framesPerSecond = shared.framesPerSecond
    camera.realtime = shared.realtime
    camera.camera = shared.camera
    camera.reconnectTimeout = shared.reconnectTimeout
    return camera
  }

  /// Records every `--source`, as `setup` (made from the same options) describes.
  func recordSeveral(_ setup: RecordingSetup) throws {
    let specs = try source.map { try SourceSpec(parsing: $0) }
    try requireDistinctCameras(specs)
    if setup.configuration.video.copiesPackets {
      throw RecordingOptionError("--video-codec copy records one camera's own packets: give one --source")
    }
    let names = Self.cameraNames(source)
    if layout != nil { return try recordMosaic(setup, specs: specs, names: names) }
    return try recordEach(setup, specs: specs, names: names)
  }

  /// Each camera into its own `-o`, with the same options.
  private func recordEach(_ setup: RecordingSetup, specs: [SourceSpec], names: [String]) throws {
    let runner = RecordingRunner(quiet: quiet, statsFile: nil)
    var members: [RecordingGroup.Member] = []
    var setups: [RecordingSetup] = []
    // Each camera's files go to the archive of their own folder.
    let archives = RunningArchives()
    for (index, spec) in specs.enumerated() {
      var camera = setup
      let name = outputOptions.output[index]
      camera.names = [name]
      camera.plan = try outputOptions.plan(names: [name], overwrite: overwrite, segmented: setup.configuration.segments != nil)
      camera.configuration.source = .live(spec)
      if spec.hasOwnSize { camera.configuration.size = nil }
      camera.configuration.outputs = camera.plan
      let report = runner.report
      let cameraName = names[index]
      camera.archive?.options.folder = ArchiveOptions.folder(files: camera.plan.files, eventPattern: nil)
      camera.configuration.archive = try archives.archive(for: camera.archive) { report("\(cameraName): \($0)") }
      let pipeline = try RecordingPipeline(camera.configuration) { report("\(cameraName): \($0)") }
      members.append(RecordingGroup.Member(name: cameraName, pipeline: pipeline))
      setups.append(camera)
    }
    // Caught, so that their default action cannot end camfx without finishing the files.
    let report = runner.report
    let ignored = StopSignals(signals: [SIGUSR1, SIGUSR2], coalescing: 0) { signal, _ in
      report("\(signal == SIGUSR1 ? "SIGUSR1" : "SIGUSR2") ignored: with several --source, stills and event clips need --layout")
    }
    // One preview server for them all: a page of every camera, each at /cameras/NAME/.
    let preview = try setup.previewAddress.map { address in
      try previewOptions.start(at: address, cameras: members.map { ($0.name, $0.pipeline) })
    }
    defer {
      ignored.cancel()
      preview?.stop()
    }
    let group = RecordingGroup(members)
    _ = try runner.run(group, display: .statusLine, verbose: verbose)
    var failures: [String] = []
    for end in archives.close() {
      Self.printToStderr("camfx: \(end.line)\n")
      if let failure = end.failure { failures.append(failure) }
    }
    for ((member, camera), result) in zip(zip(members, setups), group.results) {
      switch result {
      case .success(let summary):
        let outcome = camera.outcome(of: summary, outputs: member.pipeline.outputReports)
        for line in outcome.lines { Self.printToStderr("\(member.name): \(line)\n") }
        if let failure = outcome.failure { failures.append("\(member.name): \(failure)") }
      case .failure(let error):
        failures.append("\(member.name): \(error)")
      }
    }
    if !failures.isEmpty { throw RecordingFailure(message: failures.joined(separator: "; ")) }
  }

  /// The cameras in one picture (`--layout`), recorded as `setup` says: the picture is
  /// the recording's source, and every other option (the filters, the sound, the
  /// outputs, events and motion, stills and preview) applies to it.
  private func recordMosaic(_ setup: RecordingSetup, specs: [SourceSpec], names: [String]) throws {
    guard let layoutText = layout else { return }
    let mosaicLayout = try MosaicLayout(parsing: layoutText, cameras: names)
    let runner = RecordingRunner(quiet: quiet, statsFile: setup.statsFile)
    let report = runner.report
    var cameras: [RecordingPipeline] = []
    for (spec, name) in zip(specs, names) {
      cameras.append(try RecordingPipeline(cameraConfiguration(spec, like: setup)) { report("\(name): \($0)") })
    }
    let size = try mosaicSize.map { try FrameGeometry(parsing: $0, option: "--mosaic-size") }
      ?? Self.mosaicSize(mosaicLayout, cameras: cameras.map(\.outputGeometry))
    let rate = setup.configuration.framesPerSecond ?? Int(cameras.map(\.framesPerSecond).max()?.rounded() ?? 30)
    let picture = try MosaicSource(layout: mosaicLayout, cameras: names, size: size, framesPerSecond: rate)
    for (camera, name) in zip(cameras, names) {
      camera.addTap(try MosaicFeed(camera: name, into: picture.mosaic, geometry: camera.outputGeometry))
    }
    var recording = setup.configuration
    recording.source = .own(picture)
    let archive = try setup.archive.map { try $0.start(report: report) }
    recording.archive = archive
    let eventSignal = SignalTrigger { fired in if fired == 0 { report("SIGUSR2 ignored: event clips need --pre-record") } }
    if recording.events != nil { recording.triggers.append(eventSignal) }
    let mosaic = try RecordingPipeline(recording, report: report)
    let stills = StillCapture(pattern: setup.stillPattern, report: report)
    mosaic.addTap(stills)
    let stillSignal = StopSignals(signals: [SIGUSR1], coalescing: 0) { _, _ in stills.request() }
    // One preview server: a page of every camera and the picture, each at /cameras/NAME/.
    let preview = try setup.previewAddress.map { address in
      try previewOptions.start(at: address, cameras: Array(zip(names, cameras)) + [(RunFile.mosaicName, mosaic)])
    }
    defer {
      stillSignal.cancel()
      eventSignal.cancel()
      preview?.stop()
    }
    var members = zip(names, cameras).map { RecordingGroup.Member(name: $0.0, pipeline: $0.1, leads: false) }
    members.append(RecordingGroup.Member(name: RunFile.mosaicName, pipeline: mosaic))
    let group = RecordingGroup(members)
    let summary = try runner.run(group, display: .statusLine, verbose: verbose)
    stills.waitUntilWritten()
    if let soundError = summary.soundError { Self.printToStderr("camfx: warning: \(soundError); the video went on\n") }
    let outcome = setup.outcome(of: summary, outputs: mosaic.outputReports)
    for line in outcome.lines { Self.printToStderr(line + "\n") }
    // A camera that failed left its card in the picture; the exit status says so too.
    var failures = outcome.failure.map { [$0] } ?? []
    if let end = archive?.close(waitingAtMost: setup.archive?.waitSeconds ?? 0) {
      Self.printToStderr("camfx: \(end.line)\n")
      if let failure = end.failure { failures.append(failure) }
    }
    for (name, result) in zip(names, group.results.dropLast()) {
      switch result {
      case .success(let cameraSummary): if let error = cameraSummary.error { failures.append("camera \(name): \(error)") }
      case .failure(let error): failures.append("camera \(name): \(error)")
      }
    }
    if !failures.isEmpty { throw RecordingFailure(message: failures.joined(separator: "; ")) }
    try runner.requireStatsWritten()
  }
}
