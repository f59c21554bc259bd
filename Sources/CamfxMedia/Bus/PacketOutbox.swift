import CamfxFFmpeg
import Synchronization

/// The packets a `MovieWriter`'s encoders made and have not published yet, in the order
/// they were made, so that publishing happens after the encoder's lock is let go:
///
///     encoder (under videoLock or audioLock) ──add──▶ outbox ──publish (no writer lock)──▶ bus
///
/// Publishing waits while a file's queue is full (`OutputDelivery.everyPacket`). Under
/// the encoder's lock, that wait held up everyone who needed the lock for as long as the
/// disk stalled; here it holds up only the next publisher. One thread publishes at a
/// time, and it takes every packet waiting, its own and those the other encoder added
/// meanwhile: each stream reaches the bus in the order its encoder made it.
///
/// The two arrays swap roles at each batch, keeping their storage: no allocation once
/// they have grown to a batch's size.
final class PacketOutbox: Sendable {
  /// Added under the encoders' locks.
  private let waiting = Mutex<[EncodedPacket]>([])
  /// Held while a batch is published; its array is the batch.
  private let publishing = Mutex<[EncodedPacket]>([])

  /// Queues a packet an encoder just made (under the encoder's lock: brief, no I/O).
  func add(_ packet: EncodedPacket) {
    waiting.withLock { $0.append(packet) }
  }

  /// Hands every waiting packet to `publish`, oldest first, until none is left; waits
  /// for a thread publishing now to finish first. Call with no encoder lock held.
  /// - Throws: what `publish` throws; the rest of that batch is dropped (the writer has
  ///   failed).
  func publish(_ publish: (EncodedPacket) throws(FFmpegError) -> Void) throws(FFmpegError) {
    try publishing.withLock { (batch: inout [EncodedPacket]) throws(FFmpegError) in
      while true {
        waiting.withLock { swap(&$0, &batch) }
        if batch.isEmpty { return }
        defer { batch.removeAll(keepingCapacity: true) }
        for packet in batch { try publish(packet) }
      }
    }
  }

  /// Drops what waits (the writer stopped: nothing more goes to the outputs).
  func discard() {
    waiting.withLock { $0.removeAll() }
  }
}
