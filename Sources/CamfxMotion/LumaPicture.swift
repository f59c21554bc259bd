/// A picture's brightness as the motion detector reads it: a yuv420p frame's Y plane as
/// it is, or BGRA pixels whose luma it computes (BT.601, limited range, as the encoder's
/// conversion does).
///
///     rows of `bytesPerRow` bytes, `height` of them:
///     ┌──────────── width ────────────┬── padding ──┐
///     │ Y Y Y Y …   (or B G R A …)     │             │
///
/// It only borrows the memory: use it within the call that gave the pointer.
public struct LumaPicture {
  public enum Layout: Sendable { case luma, bgra }
  public let base: UnsafePointer<UInt8>
  public let width: Int
  public let height: Int
  public let bytesPerRow: Int
  public let layout: Layout

  public init(base: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int, layout: Layout) {
    self.base = base
    self.width = width
    self.height = height
    self.bytesPerRow = bytesPerRow
    self.layout = layout
  }
}
