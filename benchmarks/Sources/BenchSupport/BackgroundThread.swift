#if canImport(Glibc)
import Glibc
#endif

/// A plain POSIX thread running one closure, joined explicitly: the second side of the
/// ring benchmarks. (Dispatch and Foundation's Thread would add their own queues and
/// allocations to what is measured.)
public final class BackgroundThread {
  private var thread = pthread_t()
  private var joined = false

  /// Starts `body` on a new thread at once.
  public init(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let result = pthread_create(&thread, nil, { raw in
      let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
      box.body()
      return nil
    }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
  }

  /// Waits for the closure to return.
  public func join() {
    guard !joined else { return }
    joined = true
    let result = pthread_join(thread, nil)
    precondition(result == 0, "pthread_join failed: \(result)")
  }

  deinit { join() }
}
