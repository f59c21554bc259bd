import Foundation
import Camfx

/// The preview of recordings that are about to run: a `PreviewTap` on each pipeline and
/// one `PreviewServer` for all of them, each pipeline a camera of its own name (a mosaic
/// is one more), until `stop()`. What `camfx record --preview` and `camfx preview` start
/// for their one pipeline, and what a job of several starts for all of its.
///
///     let preview = try PipelinePreview(
///       address: PreviewAddress(parsing: "127.0.0.1:8080"),
///       cameras: [(name: "front", pipeline: front), (name: "back", pipeline: back), (name: "mosaic", pipeline: mosaic)])
///     defer { preview.stop() }
///     let results = RecordingPipeline.run([front, back, mosaic])
///
/// Each camera's figures come from its pipeline: its statistics, its outputs, its
/// motion detector, its events (`POST .../event`, when it records event clips).
public final class PipelinePreview: Sendable {
  public let server: PreviewServer
  /// One per camera, in the cameras' order.
  public let taps: [PreviewTap]

  /// Starts serving, and adds each tap to its pipeline (so call it before they run).
  /// - Parameters:
  ///   - cameras: each pipeline with the name it goes by (`PreviewCamera`'s rules).
  ///   - framesPerSecond: at most this many JPEGs a second to a viewer of a stream.
  ///   - credentials: `USER:PASS` for HTTP Basic, or nil for none.
  ///   - transport: TLS (HTTPS and WSS), or nil for plain HTTP.
  ///   - motionBoxes: outline the motion detector's boxes on the streams of the cameras
  ///     that have one (never on the recording or the snapshots).
  /// - Throws: `PreviewError` for a bad name, two cameras of one name, an address that
  ///   cannot be served; nothing is left running.
  public init(
    address: PreviewAddress, cameras: [(name: String, pipeline: RecordingPipeline)], framesPerSecond: Double = 15,
    credentials: String? = nil, transport: (any PreviewTransport)? = nil, motionBoxes: Bool = false
  ) throws(PreviewError) {
    var previewCameras: [PreviewCamera] = []
    for (name, pipeline) in cameras {
      previewCameras.append(try Self.camera(name: name, pipeline: pipeline, framesPerSecond: framesPerSecond, motionBoxes: motionBoxes))
    }
    server = try PreviewServer(address: address, cameras: previewCameras, credentials: credentials, transport: transport)
    taps = previewCameras.map(\.tap)
    try server.start()
    for (index, tap) in taps.enumerated() {
      do {
        try tap.start()
      } catch {
        for started in taps[..<index] { started.stop() }
        server.stop()
        throw error
      }
    }
    for (tap, camera) in zip(taps, cameras) { camera.pipeline.addTap(tap) }
  }

  /// The tap of a preview of one pipeline (the first camera's).
  public var tap: PreviewTap { taps[0] }

  /// JPEGs made for the viewers of every camera so far.
  public var viewerFrames: Int { taps.reduce(0) { $0 + $1.viewerFrames } }

  /// Stops serving and ends every tap's thread.
  public func stop() {
    server.stop()
    for tap in taps { tap.stop() }
  }

  /// The folder of event clips named by `pattern`, unless the folder's name changes
  /// with the date (`%Y/%m/%d/ev.mp4`): the page then lists none.
  static func eventFolder(pattern: String) -> String? {
    let folder = (pattern as NSString).deletingLastPathComponent
    guard !folder.contains("%") else { return nil }
    return folder.isEmpty ? "." : folder
  }

  /// `pipeline` as a camera of a preview server: a tap for its pictures (not yet
  /// started, nor added to the pipeline), its figures, and when it makes event clips,
  /// a `RequestTrigger` for `POST /event`, added to it (so call it before it runs).
  public static func camera(
    name: String, pipeline: RecordingPipeline, framesPerSecond: Double, motionBoxes: Bool
  ) throws(PreviewError) -> PreviewCamera {
    let tap = PreviewTap(geometry: pipeline.outputGeometry, framesPerSecond: framesPerSecond)
    let writer = pipeline.writer
    // A timelapse's frames are seconds apart by design: its signal is lost only after
    // a few of them failed to come.
    let staleAfter = max(2, 3 * (pipeline.configuration.timelapse?.seconds ?? 0))
    let state = PreviewState(
      statistics: pipeline.session.statistics, viewers: { tap.viewers }, motion: pipeline.motion,
      geometry: pipeline.outputGeometry, staleAfter: staleAfter, archive: pipeline.configuration.archive
    ) {
      writer?.outputReports ?? []
    }
    if motionBoxes, let motion = pipeline.motion {
      tap.boxes = { motion.latest?.boxes ?? [] }
    }
    var events: (@Sendable (EventRequest) -> Void)? = nil
    if pipeline.events != nil {
      let trigger = RequestTrigger(name: "http")
      // It makes clips: the trigger is taken.
      try? pipeline.addTrigger(trigger)
      events = { @Sendable (request: EventRequest) in
        switch request {
        case .start(let duration): trigger.fire(duration: duration ?? 0)
        case .stop: trigger.endEvent()
        }
      }
    }
    let live = LiveView(pipeline: pipeline)
    return try PreviewCamera(
      name: name, tap: tap, events: events,
      metrics: { families in
        state.addMetrics(to: &families, camera: name)
        live.addMetrics(to: &families, camera: name)
        if let recorder = pipeline.events {
          var byTrigger: [String: Int] = [:]
          for event in recorder.events { byTrigger[event.trigger, default: 0] += 1 }
          for (trigger, count) in byTrigger.sorted(by: { $0.key < $1.key }) {
            families.add(
              "camfx_events_total", .counter, help: "Event clips started, by what triggered each first.",
              labels: [("camera", name), ("trigger", trigger)], value: Double(count))
          }
        }
      }, live: live, eventFolder: pipeline.events.flatMap { eventFolder(pattern: $0.options.pattern) }
    ) {
      state.json()
    }
  }
}
