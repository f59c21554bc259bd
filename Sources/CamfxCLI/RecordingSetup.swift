import Camfx
import CamfxMedia
import CamfxPreview

/// What a `camfx record` command line describes, checked before anything is opened:
/// the pipeline's configuration, and what the command does around the pipeline. Made
/// by `RecordCommand.setup()` alone, for `camfx record` and for each camera of
/// `camfx run`, so that a camera in a YAML file and a command line are one recording.
struct RecordingSetup {
  /// The pipeline to build (its outputs included).
  var configuration: RecordingPipeline.Configuration
  /// The `-o` values, or the default file's name when none was given; empty when only
  /// event clips are recorded.
  var names: [String]
  /// The outputs the names make, checked (their strftime fields filled in).
  var plan: RecordingOutputPlan
  /// Where SIGUSR1 writes a still (`--still`, else next to the first file).
  var stillPattern: String
  /// Where the preview server listens (`--preview`), if anywhere.
  var previewAddress: PreviewAddress?
  /// Where the final figures go (`--stats-json`), its folder checked.
  var statsFile: OutputFile?
  /// Where finished files are uploaded (`--archive`), before it is started.
  var archive: ArchivePlan? = nil
}

extension RecordingSetup {
  /// What the end of a recording says (its summary lines, one per output) and, when
  /// something was lost, the failure its exit status reports.
  struct Outcome {
    var lines: [String]
    var failure: String?
  }

  /// The closing lines of a recording made from this setup, and its failure if any.
  /// - Parameter outputs: what the job's outputs hold at its end.
  func outcome(of summary: RecordingSummary, outputs: [OutputReport]) -> Outcome {
    var lines: [String] = []
    let file = plan.files.first.flatMap { path in outputs.first { $0.name == path } }
      ?? outputs.first { $0.kind == "file" || $0.kind == "segments" }
    let output = file?.name ?? plan.targets.map(\.displayName).joined(separator: ", ")
    if names.isEmpty {
      // Event clips only: each clip said its own line when it closed.
      let clips = summary.events ?? []
      lines.append(
        "encoded \(summary.framesOut) frames (\(RecordingStatusLine.fixed(summary.durationSeconds, 2)) s) for event clips: "
          + "\(clips.count) clip(s)" + (clips.isEmpty ? "" : " (" + clips.map(\.path).joined(separator: ", ") + ")")
          + ", \(summary.droppedTotal) dropped; stopped by \(summary.stopReason.rawValue)")
    } else if summary.framesOut > 0 || summary.error == nil {
      // The first file's own figures; with no file, the streams' together, as named.
      let line = RecordingStatusLine.summary(
        summary, output: output, bytes: file == nil ? summary.totalBytes ?? summary.bytes : summary.bytes)
      lines.append(configuration.video.copiesPackets ? line.replacingOccurrences(of: "recorded", with: "copied") : line)
      // Then every other output, each with its own.
      for report in outputs where report.name != file?.name {
        let isFile = report.kind == "file" || report.kind == "segments"
        lines.append(isFile ? RecordingStatusLine.fileSummary(report) : RecordingStatusLine.outputSummary(report))
      }
    }
    if let error = summary.error {
      let kept = (file?.bytes ?? 0) > 0 && summary.framesOut > 0 ? "; kept \(summary.framesOut) frames in \(output)" : ""
      return Outcome(lines: lines, failure: error + kept)
    }
    // A clip that could not be written ended alone and the recording went on; the exit
    // status still says that something was lost.
    let clips = summary.events ?? []
    if let failed = clips.first(where: { $0.error != nil }), let reason = failed.error {
      let count = clips.filter { $0.error != nil }.count
      return Outcome(
        lines: lines,
        failure: "\(count) of \(clips.count) event clip(s) could not be written (\(failed.path): \(reason))"
          + (names.isEmpty ? "" : "; \(output) is complete"))
    }
    return Outcome(lines: lines, failure: nil)
  }
}
