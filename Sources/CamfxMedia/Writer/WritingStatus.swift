import CamfxFFmpeg
import CamfxFrames
/// Where a writer or an output is in its life, as `AVAssetWriter.Status`:
///
///     .unknown ──start──> .writing ──finish──> .completed
///                            │  └───cancel───> .cancelled
///                            └──error────────> .failed(error)
public enum WritingStatus: Sendable, Equatable, CustomStringConvertible {
  case unknown, writing, completed, failed(FFmpegError), cancelled
  public var description: String {
    switch self {
    case .unknown: "unknown"
    case .writing: "writing"
    case .completed: "completed"
    case .failed(let e): "failed: \(e)"
    case .cancelled: "cancelled"
    }
  }
}
