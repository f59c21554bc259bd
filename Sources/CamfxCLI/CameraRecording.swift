import Camfx
import CamfxCore
import Synchronization

/// One camera of `camfx run` while it records: its job (built from the camera's
/// `RecordingSetup`, as `camfx record` builds it), the thread that runs it, its latest
/// figures and, once it has ended, its result.
///
/// `@unchecked Sendable`: the job is run by its own thread only; the run's thread stops
/// it (`stop()` and `stopAtOnce()` are safe from any thread) and reads the figures and
/// the result, which are behind mutexes.
final class CameraRecording: @unchecked Sendable {
  let camera: RunFile.Camera
  let job: any RecordingJob
  /// The pipeline, when the camera's pictures are encoded (not for `video-codec: copy`):
  /// what stills, events and the preview attach to.
  let pipeline: RecordingPipeline?
  let stills: StillCapture?
  private let latest = Mutex<(snapshot: RecordingStatistics.Snapshot, elapsed: Double)?>(nil)
  private let outcome = Mutex<Result<RecordingSummary, any Error>?>(nil)

  /// Builds the camera's recording: opens its device and its encoders (no file is
  /// created before its first packet).
  /// - Parameters:
  ///   - creationTime: the wall-clock instant its files are stamped with (seconds since 1970).
  ///   - report: told one line at a time what the pipeline says.
  /// - Throws: what building the pipeline throws (a device that is missing or busy).
  ///   - source: what it records instead of its own source (a mosaic's picture).
  ///   - sound: what it hears instead of its own sound (the mosaic's camera's microphone).
  ///   - eventTrigger: what starts its event clips, when it makes them (SIGUSR2).
  ///   - archive: where its finished files go (`archive:`), started.
  init(
    _ camera: RunFile.Camera, creationTime: Double, source: (any MediaSource<PCMBuffer>)? = nil,
    sound: RecordingPipeline.Configuration.Sound? = nil, eventTrigger: (any EventTrigger)? = nil,
    archive: (any FileArchive)? = nil, report: @escaping @Sendable (String) -> Void
  ) throws {
    self.camera = camera
    var configuration = camera.setup.configuration
    configuration.archive = archive
    if let source { configuration.source = .own(source) }
    if let sound { configuration.sound = sound }
    if let eventTrigger, configuration.events != nil { configuration.triggers.append(eventTrigger) }
    configuration.file.creationTime = creationTime
    configuration.segments?.file.creationTime = creationTime
    switch try Recording(configuration, report: report) {
    case .copying(let copy):
      job = copy
      pipeline = nil
      stills = nil
    case .encoding(let pipeline):
      let capture = StillCapture(pattern: camera.setup.stillPattern, report: report)
      pipeline.addTap(capture)
      job = pipeline
      self.pipeline = pipeline
      stills = capture
    }
  }

  /// Starts recording on a thread of its own; `ended` is called on it when the
  /// recording has ended (its files are finished).
  func start(ended: @escaping @Sendable () -> Void) {
    do {
      try NamedThread("camfx.camera") { [self] in
        let result = Result {
          try job.run(statusInterval: 0.5) { snapshot, elapsed in latest.withLock { $0 = (snapshot, elapsed) } }
        }
        outcome.withLock { $0 = result }
        ended()
      }.detach()
    } catch {
      // No thread for it: it never starts, and says why.
      job.cancel()
      outcome.withLock { $0 = .failure(error) }
      ended()
    }
  }

  /// The figures of the last status interval, and the seconds since the start.
  var figures: (snapshot: RecordingStatistics.Snapshot, elapsed: Double)? { latest.withLock { $0 } }

  /// The summary, or why it could not record; nil while it records.
  var result: Result<RecordingSummary, any Error>? { outcome.withLock { $0 } }
}
