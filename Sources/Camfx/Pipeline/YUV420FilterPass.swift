import CamfxCore
import CamfxMedia

/// The filter stage's work for a transcode whose every filter works on yuv420p
/// (`FilterChain.acceptsYUV420`: mirror, crop, grayscale, watermark): the chain reads
/// the decoded picture and writes the encoder's picture, and no BGRA is ever made —
/// as `ffmpeg -vf hflip` flips the decoded planes.
///
///     decoded Y/U/V ──▶ chain ──▶ Y/U/V for the encoder
///
/// The first filter reads the decoded picture and writes the encoder's; the rest work
/// on that in place (or, when a later filter changes the size, the ones before it write
/// intermediate pictures; see `FilterChain+YUV420.swift`).
///
/// Against row bands (`RowBandPass`), this saves the conversion to BGRA and back, about
/// 1.2 ms of a core per 1080p frame, and keeps the decoded samples exactly where the
/// filters do not change them.
final class YUV420FilterPass: YUV420FramePass {
  let chain: FilterChain
  /// The encoder-ready pictures this pass writes; the writer stage lets go of them.
  let output: YUV420FramePool
  /// Pictures between filters, when the chain changes size before its last filter.
  private let intermediates: [YUV420Planes]

  /// - Parameters:
  ///   - chain: configured, accepting yuv420p (`chain.acceptsYUV420`).
  ///   - capacity: output pictures: the frames the writer's ring holds, plus the one
  ///     being written and the one being encoded.
  init(chain: FilterChain, capacity: Int) throws {
    precondition(chain.acceptsYUV420, "YUV420FilterPass needs a chain that accepts yuv420p")
    guard let geometry = chain.outputGeometry else { preconditionFailure("the chain is not configured") }
    self.chain = chain
    output = try YUV420FramePool(geometry: geometry, capacity: capacity, kind: .owned)
    intermediates = chain.makeYUV420Intermediates()
  }

  func process(_ source: YUV420Frame, shouldStop: () -> Bool) throws -> YUV420Frame? {
    // No filter: the picture goes to the encoder as it is (by reference, no copy).
    if chain.isEmpty { return source }
    guard let out = try output.acquire(presentationTime: source.presentationTime, shouldStop: shouldStop) else {
      return nil
    }
    chain.process(yuv420: source.picture, into: out.picture, using: intermediates)
    return out
  }
}
