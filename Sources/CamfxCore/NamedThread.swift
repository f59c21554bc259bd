#if canImport(Glibc)
import Glibc
#endif

/// How camfx starts each thread of its own — the pipeline's stages, a microphone's
/// reader, a live output's sender, the signal watcher: a POSIX thread that runs one
/// closure, carries a name (`top -H`, `perf`, gdb show it; at most 15 characters are
/// kept), and is joined (`join()`) or left to end by itself (`detach()`).
///
///     let stage = try NamedThread("camfx.filter") { runFilterStage() }
///     ...
///     stage.join()
///
/// `@unchecked Sendable`: the handle is written once in `init`; `join` and `detach`
/// may be called once, from any thread.
public final class NamedThread: @unchecked Sendable {
  private let handle: pthread_t
  private var joinedOrDetached = false

  /// Starts the thread.
  /// - Throws: `NamedThread.StartError` with `pthread_create`'s code (EAGAIN: the
  ///   system's thread limit).
  public init(_ name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
    let box = Unmanaged.passRetained(Body(name: name, run: body))
    var t = pthread_t()
    let created = pthread_create(&t, nil, { arg in
      let body = Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue()
      // Named by itself before its work: a name set by the creator after
      // pthread_create could come after the work began (or after a short thread ended).
      NamedThread.setName(pthread_self(), body.name)
      body.run()
      return nil
    }, box.toOpaque())
    guard created == 0 else {
      box.release()
      throw StartError(name: name, code: created)
    }
    handle = t
  }

  /// `pthread_setname_np`, which Glibc's Swift module does not export (it is behind
  /// `_GNU_SOURCE`), looked up once in libc.
  private static let setNameFunction: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np").map { unsafeBitCast($0, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self) }
  }()

  private static func setName(_ thread: pthread_t, _ name: String) {
    // The kernel keeps 15 bytes and a NUL; a longer name is refused, not cut.
    let short = String(decoding: name.utf8.prefix(15), as: UTF8.self)
    _ = setNameFunction?(thread, short)
  }

  /// Waits for the thread's closure to return.
  public func join() {
    precondition(!joinedOrDetached, "NamedThread joined or detached twice")
    joinedOrDetached = true
    pthread_join(handle, nil)
  }

  /// Lets the thread end by itself; its resources are freed when it does.
  public func detach() {
    precondition(!joinedOrDetached, "NamedThread joined or detached twice")
    joinedOrDetached = true
    pthread_detach(handle)
  }

  /// `pthread_create` failed.
  public struct StartError: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let code: Int32
    public var description: String {
      "cannot start thread \(name): \(String(cString: strerror(code))) (errno \(code))"
    }
  }

  private final class Body {
    let name: String
    let run: @Sendable () -> Void
    init(name: String, run: @escaping @Sendable () -> Void) {
      self.name = name
      self.run = run
    }
  }
}
