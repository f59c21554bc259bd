import Camfx
import CamfxCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One `camfx run` from its start to its end: the signals, the cameras, the preview,
/// the status line and the reloads, all on the calling thread.
final class RunSession {
  let path: String
  let quiet: Bool
  let onTerminal = isatty(STDERR_FILENO) != 0
  let stopTarget = RecordingStopTarget()
  let cameras: RunningCameras
  let requests = Requests()
  /// The preview server: a page of every camera.
  let preview = RunPreview()
  /// The mosaic every camera's feed draws into, whichever the file describes now.
  let board = MosaicBoard()
  var previewFailed = false

  /// What the signals ask of the run's thread.
  final class Requests: Sendable {
    let reload = Atomic<Bool>(false)
    let stills = Atomic<Bool>(false)
    let event = Atomic<Bool>(false)
    var any: Bool {
      reload.load(ordering: .acquiring) || stills.load(ordering: .acquiring) || event.load(ordering: .acquiring)
    }
  }

  init(path: String, quiet: Bool) {
    self.path = path
    self.quiet = quiet
    let wake = WakeSignal(), requests = requests
    // SIGUSR2 starts a clip in every camera that makes them, from now on; the others
    // say they ignored it, from the run's thread.
    let eventSignal = SignalTrigger { _ in
      requests.event.store(true, ordering: .releasing)
      wake.notify()
    }
    cameras = RunningCameras(
      stopTarget: stopTarget, erasesStatus: !quiet && onTerminal, wake: wake, eventTrigger: eventSignal)
  }

  func run(_ first: RunFile) throws {
    let target = stopTarget, wake = cameras.wake, requests = requests
    // Caught before any camera is opened, so that a stop always finishes the files.
    let stopSignals = StopSignals(signals: [SIGINT, SIGTERM]) { _, _ in
      target.signalled()
      wake.notify()
    }
    let reloadSignal = StopSignals(signals: [SIGHUP], coalescing: 0) { _, _ in
      requests.reload.store(true, ordering: .releasing)
      wake.notify()
    }
    let stillSignal = StopSignals(signals: [SIGUSR1], coalescing: 0) { _, _ in
      requests.stills.store(true, ordering: .releasing)
      wake.notify()
    }
    // A pipe whose reader went away must end that output, not the process.
    signal(SIGPIPE, SIG_IGN)
    defer {
      preview.stop()
      cameras.eventTrigger.cancel()
      for handler in [stillSignal, reloadSignal, stopSignals] { handler.cancel() }
    }

    var description = first
    start(try description.recordings(), of: description)
    servePreview(of: description)
    if stopTarget.isStopping && cameras.recordings.isEmpty && cameras.failures.isEmpty {
      throw RecordingOptionError("interrupted before the recording started")
    }
    let showStatus = !quiet && onTerminal
    let start = MonotonicClock.seconds()
    var nextStatus = start + 0.5
    while true {
      cameras.collectEnded()
      if cameras.recordings.isEmpty { break }
      if requests.reload.exchange(false, ordering: .acquiringAndReleasing) && !stopTarget.isStopping {
        description = reload(description)
      }
      if requests.stills.exchange(false, ordering: .acquiringAndReleasing) {
        for recording in cameras.recordings {
          if let stills = recording.stills {
            stills.request()
          } else {
            cameras.reporter(for: recording.camera.name)("SIGUSR1 ignored: a copy has no pictures to make a still of")
          }
        }
      }
      if requests.event.exchange(false, ordering: .acquiringAndReleasing) {
        for recording in cameras.recordings where recording.pipeline?.events == nil {
          cameras.reporter(for: recording.camera.name)("SIGUSR2 ignored: event clips need pre-record")
        }
      }
      let now = MonotonicClock.seconds()
      if now >= nextStatus {
        if showStatus { RecordCommand.printToStderr("\r\u{1B}[2K" + cameras.statusLine(elapsed: now - start)) }
        if !quiet && !onTerminal { for line in cameras.progressLines() { RecordCommand.printToStderr(line + "\n") } }
        nextStatus = now + 0.5
      }
      let left = max(0, nextStatus - MonotonicClock.seconds())
      let recordings = cameras.recordings
      cameras.wake.wait(timeoutNanoseconds: Int(left * 1e9)) {
        requests.any || recordings.contains { $0.result != nil }
      }
    }
    if showStatus { RecordCommand.printToStderr("\r\u{1B}[2K") }
    var problems: [String] = []
    for end in cameras.archives.close() {
      RecordCommand.printToStderr("camfx: \(end.line)\n")
      if let failure = end.failure { problems.append(failure) }
    }
    // A camera that failed, was restarted by a reload and failed again counts once.
    var failed: [String] = []
    for name in cameras.failures where !failed.contains(name) { failed.append(name) }
    if !failed.isEmpty {
      // The mosaic is a recording of the run too; cameras a reload removed still count.
      let hasMosaic = description.mosaic != nil || failed.contains(RunFile.mosaicName)
      let total = max(description.cameras.count + (hasMosaic ? 1 : 0), failed.count)
      let what = hasMosaic ? "recordings (cameras and the mosaic)" : "camera(s)"
      problems.append("\(failed.count) of \(total) \(what) failed: \(failed.joined(separator: ", "))")
    }
    if previewFailed { problems.append("the preview failed") }
    if !problems.isEmpty { throw RecordingFailure(message: problems.joined(separator: "; ")) }
  }

  /// Opens and starts `list` together, each with a tap for the preview.
  /// Every camera gets a feed into the mosaic board (taken only while a mosaic shows
  /// it), so that a mosaic added or changed by a reload needs no camera started again.
  func start(_ list: [RunFile.Camera], of file: RunFile) {
    var list = list
    var picture: MosaicSource? = nil
    if list.contains(where: { $0.name == RunFile.mosaicName }), let mosaic = file.mosaic {
      do {
        let rate = list.first { $0.name == RunFile.mosaicName }?.command.fps ?? 30
        picture = try MosaicSource(layout: mosaic.layout, cameras: mosaic.cameras, size: mosaic.size, framesPerSecond: rate)
      } catch {
        cameras.say("camfx: \(RunFile.mosaicName): error: \(error)")
        list.removeAll { $0.name == RunFile.mosaicName }
      }
    }
    let board = board
    let cameras = cameras
    let sound = { (camera: RunFile.Camera, opened: [CameraRecording]) -> RecordingPipeline.Configuration.Sound? in
      guard let name = camera.soundFrom else { return nil }
      guard let microphone = opened.last(where: { $0.camera.name == name })?.pipeline?.microphone else {
        cameras.say("camfx: \(camera.name): warning: no sound: camera '\(name)' is not recording")
        return RecordingPipeline.Configuration.Sound.none
      }
      return .microphoneReader(microphone.addReader())
    }
    cameras.start(list, source: { $0.name == RunFile.mosaicName ? picture : nil }, sound: sound) { recording in
      if recording.camera.name != RunFile.mosaicName, let pipeline = recording.pipeline {
        do {
          pipeline.addTap(try MosaicFeed(camera: recording.camera.name, board: board, geometry: pipeline.outputGeometry))
        } catch {
          cameras.say("camfx: \(recording.camera.name): warning: no picture for the mosaic: \(error)")
        }
      }
      do {
        try preview.join(recording)
      } catch {
        cameras.say("camfx: \(recording.camera.name): warning: no preview: \(error)")
      }
    }
    if let picture { board.show(picture.mosaic) }
  }

  /// Serves every camera of `file` that records, at its `preview:` address (the first
  /// camera's `preview-auth` and `preview-tls`), or stops serving when it has none.
  func servePreview(of file: RunFile) {
    let names = cameras.recordings.map(\.camera.name)
    do {
      if let url = try preview.serve(
        at: file.preview, names: names, credentials: file.cameras.first?.command.previewOptions.previewAuth,
        transport: file.cameras.first?.command.previewOptions.transport())
      {
        cameras.say("camfx: preview at \(url)")
      }
    } catch {
      cameras.say("camfx: error: preview: \(error)")
      previewFailed = true
    }
  }

  /// Reads the file again and applies what changed; a file with an error changes nothing.
  func reload(_ current: RunFile) -> RunFile {
    // A camera that ended since the loop's last look is said and taken out first, so
    // that the reload restarts it like any other ended camera instead of keeping it.
    cameras.collectEnded()
    let running = Dictionary(cameras.recordings.map { ($0.camera.name, $0.camera) }) { first, _ in first }
    let next: RunFile
    let nextRecordings: [RunFile.Camera]
    do {
      next = try RunFile.read(path: path, keeping: running)
      nextRecordings = try next.recordings(keeping: running)
    } catch {
      cameras.say("camfx: reload: error: \(error); the cameras record on as they were")
      return current
    }
    var changed: [String] = [], added: [String] = [], unchanged: [String] = []
    for camera in nextRecordings {
      if let old = running[camera.name] {
        if old.arguments != camera.arguments {
          changed.append(camera.name)
        } else {
          unchanged.append(camera.name)
        }
      } else {
        added.append(camera.name)
      }
    }
    let names = Set(nextRecordings.map(\.name))
    let removed = cameras.recordings.map(\.camera.name).filter { !names.contains($0) }
    let leaving = Set(removed + changed)
    preview.leave(leaving)
    // The mosaic that leaves is no longer drawn; the one that starts is shown when it does.
    if leaving.contains(RunFile.mosaicName) || !names.contains(RunFile.mosaicName) { board.show(nil) }
    cameras.finish(leaving)
    let starting = Set(changed + added)
    start(nextRecordings.filter { starting.contains($0.name) }, of: next)
    cameras.arrange(as: nextRecordings.map(\.name))
    servePreview(of: next)
    cameras.say(
      "camfx: reloaded \(path): \(added.count) added, \(changed.count) restarted, \(removed.count) removed, "
        + "\(unchanged.count) unchanged")
    return next
  }
}
