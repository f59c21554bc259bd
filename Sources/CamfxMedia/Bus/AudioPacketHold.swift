import CamfxFFmpeg
import Synchronization

/// The audio packets a `MovieWriter` holds back until the video it has published
/// reaches them, so that no output ever holds sound past its last picture.
///
/// A video encoder hands its packets out late (x264's lookahead: 2 s at `placebo`), an
/// audio encoder at once. Published as they came, the sound ran that far ahead of the
/// picture on the bus, and a stop that could not wait for the video encoder (a second
/// Ctrl-C) left a file whose sound went on seconds past its last frame (2.8 s of sound
/// over 0.7 s of picture). Held here, an audio packet goes on once the video published
/// reaches its end, or before a keyframe that comes after its start (`keyframeComing`):
/// a segment is cut at a keyframe, and the sound that starts before the cut belongs to
/// the segment before it. Everything goes on once the video has ended (`release`), and
/// what is still held is dropped when the writer stops without the rest of the video
/// (`discard`).
///
///     video packets ──publish──▶ bus         (each one moves `videoEnd` on)
///     audio packets ──▶ hold ──publish──▶ bus  (once they end by `videoEnd`, or start
///                                              before the next keyframe)
///
/// The packets the hold lets go are published by whichever side moved it, the video's
/// or the audio's (`publishReady`); one thread at a time does, and it also publishes
/// what the other let go meanwhile, so audio packets reach the bus in order without a
/// lock held while the bus may wait.
final class AudioPacketHold: Sendable {
  private struct State {
    var held: [EncodedPacket] = []
    /// Where the video published so far ends (seconds from the session start).
    var videoEnd = 0.0
    /// Where the latest keyframe published (or about to be) starts.
    var keyframe = -Double.infinity
    /// The video has ended: nothing is held from now on.
    var released = false
    /// The writer stopped: nothing more goes on.
    var discarded = false
    /// A thread is publishing packets taken from here; it takes the next ones too.
    var publishing = false
  }

  private let state = Mutex(State())

  /// Holds an encoded audio packet (`publishReady` lets it go when its time comes).
  func add(_ packet: EncodedPacket) {
    state.withLock { s in if !s.discarded { s.held.append(packet) } }
  }

  /// The video published so far now ends at `seconds`.
  func videoReached(_ seconds: Double) {
    state.withLock { s in s.videoEnd = max(s.videoEnd, seconds) }
  }

  /// A keyframe starting at `seconds` is about to be published: the sound that starts
  /// before it goes first.
  func keyframeComing(at seconds: Double) {
    state.withLock { s in s.keyframe = max(s.keyframe, seconds) }
  }

  /// The video has ended: nothing is held from now on (`publishReady` lets all go).
  func release() {
    state.withLock { s in s.released = true }
  }

  /// The writer stopped without the rest of the video: drops what is held, and every
  /// packet added from now on.
  func discard() {
    state.withLock { s in
      s.discarded = true
      s.held = []
    }
  }

  /// Publishes every held packet whose time has come, oldest first, unless another
  /// thread is doing so now (it then publishes these as well).
  func publishReady(_ publish: (EncodedPacket) throws(FFmpegError) -> Void) throws(FFmpegError) {
    var batch = state.withLock { s -> [EncodedPacket] in
      guard !s.publishing else { return [] }
      let ready = Self.takeReady(&s)
      s.publishing = !ready.isEmpty
      return ready
    }
    while !batch.isEmpty {
      do throws(FFmpegError) {
        for packet in batch { try publish(packet) }
      } catch {
        state.withLock { s in s.publishing = false }
        throw error
      }
      batch = state.withLock { s in
        let ready = Self.takeReady(&s)
        s.publishing = !ready.isEmpty
        return ready
      }
    }
  }

  /// The held packets that may go now, in order: those that end by the video's end or
  /// start before its latest keyframe (all once released).
  private static func takeReady(_ s: inout State) -> [EncodedPacket] {
    guard !s.discarded else { return [] }
    // A microsecond of slack: the two streams' time bases round differently.
    let end = s.videoEnd + 1e-6, keyframe = s.keyframe - 1e-6
    let count =
      s.released
      ? s.held.count
      : s.held.firstIndex { $0.presentationSeconds >= keyframe && $0.presentationSeconds + $0.durationSeconds > end }
        ?? s.held.count
    let ready = Array(s.held[..<count])
    s.held.removeFirst(count)
    return ready
  }
}
