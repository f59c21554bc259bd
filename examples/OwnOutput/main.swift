// A recording with an output of its own: a keyframe counter on camfx's packet bus,
// beside a movie file from the same encode. `swift run OwnOutputExample out.mp4`
import Camfx

final class KeyframeCounter: MovieOutput {
  private(set) var keyframes = 0, videoPacketsWritten = 0, bytesWritten: Int64 = 0, videoEndSeconds = 0.0

  func prepare(streams: [EncodedStream]) {}
  func write(_ packet: EncodedPacket) {  // on this output's own thread
    bytesWritten += Int64(packet.byteCount)
    guard packet.stream.kind == .video else { return }
    videoPacketsWritten += 1
    if packet.isKeyframe { keyframes += 1 }
    videoEndSeconds = packet.presentationSeconds + packet.durationSeconds
  }
  func finish() { print("counted \(videoPacketsWritten) frames, \(keyframes) keyframes, \(bytesWritten) bytes") }
  func cancel() {}
  var report: OutputReport {
    OutputReport(name: "keyframe counter", kind: "count", state: .writing, bytes: bytesWritten, videoFrames: videoPacketsWritten)
  }
}

FFmpegLogging.fatalOnly()
var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
recording.realtime = false
recording.video.gop = 30
recording.limits.duration = MediaTime(value: 3, timescale: 1)
recording.outputs = try RecordingOutputPlan(names: [CommandLine.arguments.dropFirst().first ?? "own-output.mp4"], overwrite: true)
recording.ownOutputs = [KeyframeCounter()]
let summary = try RecordingPipeline(recording).run()
print("recorded \(summary.framesOut) frames")
