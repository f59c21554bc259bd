import CamfxCore
import CamfxFrames
import CamfxMedia

/// A sink that encodes nothing and keeps nothing: the end of a pipeline that only
/// feeds its taps (`camfx preview`).
public final class DiscardingSink<Audio: Sendable>: RecordingSink {
  public init(audio: Audio.Type = Audio.self) {}
  public func appendVideo(_ frame: YUV420Frame) throws {}
  public func appendAudio(_ audio: Audio) throws {}
  public func finish() throws {}
  public func cancel() {}
  public var bytesWritten: Int64 { 0 }
}
