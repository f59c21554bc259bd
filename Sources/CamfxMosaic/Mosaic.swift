import CamfxCore
import CamfxFrames
import ScaleFilter
import Synchronization
import TextFilter

/// Several cameras in one picture: a grid, a row, a column or a picture-in-picture
/// (`MosaicLayout`), composed on yuv420p at a size of its own, on its own clock.
///
///     camera threads ──update(camera:frame:)──▶ newest frame per camera (a mutex)
///                                                        │
///     the mosaic's clock ──compose(at:)─────────────────▶ one pooled yuv420p frame
///
/// Each camera hands over its newest picture whenever it has one, from any thread;
/// `compose(at:)`, called on the mosaic's own clock (a frame rate of its own), takes the
/// newest picture of every camera and draws them into a frame from its pool. A camera
/// that has sent nothing yet, or nothing for `staleAfter`, shows a "no signal" card with
/// its name, and its picture comes back with its next frame: the mosaic never waits for
/// a camera.
///
/// Each cell letterboxes its camera's picture (the aspect ratio kept, black bars, even
/// sides and corners for 4:2:0), scaled plane by plane with the `scale` filter's kernel
/// (`method`; by default `area` for a picture that shrinks — the 2×2 mean at exactly
/// half, a fast path — and `bilinear` for one that grows); a picture already the cell's
/// size is copied. The scalers are made again only when a camera's picture size
/// changes, and the cards once, so a steady state allocates nothing. Cameras hand over
/// yuv420p pictures (`YUV420Frame`); not wired into `record` or `run` yet.
///
/// Why this is a module of its own (`CamfxMosaic`, above CamfxFrames and the `scale` and
/// `text` filters): the pictures it takes and makes (`YUV420Frame`, its pool) live in
/// CamfxFrames, and the scale kernel and the text drawing are reachable through the
/// filters' public API (`Scale.process(yuv420:into:)` into a cell's part of the output,
/// `Text.process(yuv420:into:)` on a card), so nothing had to move; and a small module
/// builds and tests without the whole `Camfx` library, which re-exports it.
///
///     let mosaic = try Mosaic(
///       layout: MosaicLayout(parsing: "hstack", cameras: ["left", "right"]), cameras: ["left", "right"],
///       size: FrameGeometry(width: 2560, height: 720))
///     try mosaic.update(camera: "left", frame: picture)     // a camera's thread
///     let frame = try mosaic.compose(at: Mosaic.now())      // the mosaic's clock
public final class Mosaic: Sendable {
  public let layout: MosaicLayout
  public let cameras: [String]
  public let size: FrameGeometry
  /// How long a camera's newest picture is shown before its card replaces it.
  public let staleAfter: MediaTime

  /// Per camera: its newest picture and when it came (on the mosaic's clock).
  private let latest: Mutex<[Arrival]>
  /// What `compose` works with: one caller at a time.
  private let work: Mutex<Work>
  private let pool: YUV420FramePool

  struct Arrival {
    var frame: YUV420Frame?
    var time: MediaTime
  }

  /// One camera's place and the means to draw it.
  struct Cell {
    let camera: Int
    let rectangle: PixelRectangle
    let card: NoSignalCard
    /// The scaler for the last picture size seen, and where that picture goes.
    var scaler: Scale?
    var source = FrameGeometry(width: 0, height: 0)
    var content = PixelRectangle(x: 0, y: 0, width: 0, height: 0)
  }

  struct Work {
    var cells: [Cell]
    let unused: [PixelRectangle]
    /// The pictures `compose` draws, taken from `latest` (kept, so no array is made per frame).
    var held: [Arrival]
    let method: ScaleMethod?
  }

  /// - Parameters:
  ///   - layout: where the cameras go (`MosaicLayout(parsing:cameras:)`).
  ///   - cameras: the cameras' names, in the layout's order; the cards show them.
  ///   - size: the output's size (even sides).
  ///   - staleAfter: how long without a new picture before a camera's card shows.
  ///   - method: how cells are scaled (nil: `area` when a picture shrinks both ways,
  ///     else `bilinear`).
  ///   - poolCapacity: output frames in the pool; `compose` waits for one to come back
  ///     when all are held downstream (an encoder's back-pressure, never a camera's).
  ///   - font: the cards' font.
  /// - Throws: `MosaicError` for a bad size or camera list, `FilterError` when the font
  ///   cannot be opened, `FFmpegError` when the pool cannot be allocated.
  public init(
    layout: MosaicLayout, cameras: [String], size: FrameGeometry, staleAfter: MediaTime = MediaTime(value: 2, timescale: 1),
    method: ScaleMethod? = nil, poolCapacity: Int = 4, font: String = Text.defaultFont
  ) throws {
    func fail(_ reason: String) -> MosaicError { MosaicError(layout: layout.text(cameras: cameras), reason: reason) }
    guard !cameras.isEmpty else { throw fail("no cameras") }
    guard Set(cameras).count == cameras.count else { throw fail("two cameras have the same name") }
    if case .pip(let inset, _, _) = layout {
      guard cameras.count == 2, inset < 2 else { throw fail("pip shows two cameras, got \(cameras.count)") }
    }
    guard size.width >= 2, size.height >= 2, size.width % 2 == 0, size.height % 2 == 0,
      size.width <= FrameGeometry.maximumSide, size.height <= FrameGeometry.maximumSide
    else { throw fail("the output size \(size) must have even sides of 2...\(FrameGeometry.maximumSide)") }
    let placed = layout.cells(cameras: cameras.count, in: size)
    guard placed.cells.allSatisfy({ $0.rectangle.width >= 2 && $0.rectangle.height >= 2 }) else {
      throw fail("the output size \(size) is too small for \(cameras.count) cells")
    }
    var cells: [Cell] = []
    for (camera, rectangle) in placed.cells {
      let card = try NoSignalCard(
        camera: cameras[camera], size: FrameGeometry(width: rectangle.width, height: rectangle.height), font: font)
      cells.append(Cell(camera: camera, rectangle: rectangle, card: card))
    }
    self.layout = layout
    self.cameras = cameras
    self.size = size
    self.staleAfter = staleAfter
    pool = try YUV420FramePool(geometry: size, capacity: poolCapacity, kind: .owned)
    let none = [Arrival](repeating: Arrival(frame: nil, time: .zero), count: cameras.count)
    latest = Mutex(none)
    work = Mutex(Work(cells: cells, unused: placed.unused, held: none, method: method))
  }

  /// The mosaic's clock: `CLOCK_MONOTONIC` in nanoseconds, what `update` stamps
  /// pictures with when no time is given.
  public static func now() -> MediaTime { MediaTime(value: MonotonicClock.nanoseconds(), timescale: 1_000_000_000) }

  /// Hands over `camera`'s newest picture (it replaces the one before). Any thread; it
  /// takes a lock only long enough to store a reference. The mosaic keeps the picture
  /// until the next one comes or it goes stale, so a camera's pool needs one frame
  /// more.
  /// - Parameters:
  ///   - time: when it came, on the mosaic's clock (nil: `Mosaic.now()`).
  /// - Throws: `MosaicError` for a camera the mosaic does not have.
  public func update(camera: String, frame: YUV420Frame, at time: MediaTime? = nil) throws(MosaicError) {
    guard let index = cameras.firstIndex(of: camera) else {
      throw MosaicError(
        layout: layout.text(cameras: cameras), subject: "camera '\(camera)'", reason: "no such camera (cameras: \(cameras.joined(separator: ", ")))")
    }
    let arrival = Arrival(frame: frame, time: time ?? Self.now())
    latest.withLock { $0[index] = arrival }
  }

  /// Draws the mosaic as it is at `time` (the mosaic's clock, also the frame's
  /// presentation time) into a frame from the pool. One caller at a time; waits only for
  /// the pool.
  /// - Throws: `FFmpegError` when a pooled picture cannot be made writable.
  public func compose(at time: MediaTime) throws -> YUV420Frame {
    let staleAfter = self.staleAfter
    return try work.withLock { work in
      // Take the newest pictures; drop those gone stale, so that a camera that went away
      // does not keep its last frame out of its pool.
      latest.withLock { latest in
        for i in latest.indices {
          if latest[i].frame != nil, time - latest[i].time > staleAfter { latest[i].frame = nil }
          work.held[i] = latest[i]
        }
      }
      guard let output = try pool.acquire(presentationTime: time) else {
        preconditionFailure("the pool returned no frame without being asked to stop")
      }
      let picture = output.picture
      for rectangle in work.unused { picture.fill(rectangle, luma: 16, cb: 128, cr: 128) }
      for c in work.cells.indices {
        guard let frame = work.held[work.cells[c].camera].frame else {
          work.cells[c].card.draw(into: picture.region(work.cells[c].rectangle))
          continue
        }
        try Self.draw(frame.picture, in: &work.cells[c], of: picture, method: work.method)
      }
      // The held references go, so that only `latest` keeps the cameras' frames.
      for i in work.held.indices { work.held[i].frame = nil }
      return output
    }
  }

  /// Letterboxes `source` into `cell` of `output`, rebuilding the cell's scaler when the
  /// source's size changed.
  private static func draw(_ source: YUV420Picture, in cell: inout Cell, of output: YUV420Picture, method: ScaleMethod?) throws {
    if source.geometry != cell.source {
      cell.content = MosaicLayout.letterbox(source.geometry, in: cell.rectangle)
      let target = FrameGeometry(width: cell.content.width, height: cell.content.height)
      if target == source.geometry {
        cell.scaler = nil
      } else {
        let shrinks = target.width <= source.width && target.height <= source.height
        var scaler = try Scale(width: target.width, height: target.height, method: method ?? (shrinks ? .area : .bilinear))
        _ = try scaler.configure(input: source.geometry)
        cell.scaler = scaler
      }
      cell.source = source.geometry
    }
    output.fill(cell.rectangle, outside: cell.content, luma: 16, cb: 128, cr: 128)
    let into = output.region(cell.content)
    if let scaler = cell.scaler {
      scaler.process(yuv420: source, into: into)
    } else {
      source.copyPixels(to: into)
    }
  }
}
