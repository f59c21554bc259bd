import CV4L2

#if canImport(Glibc)
import Glibc
#endif

/// The one owner of an open V4L2 device node, and the one layer every ioctl goes
/// through: it reads `errno` at once, retries `EINTR`, and throws a `V4L2Error` naming
/// the ioctl and the device.
///
/// The node is opened through libv4l2 (`v4l2_open`, via the C shim because it is
/// variadic), so cameras that need libv4l's helpers (vendor formats, software
/// controls) work, and closed in `deinit`.
package final class V4L2Device {
  package let path: String
  package let fd: Int32

  /// Opens `path` read-write and non-blocking (frames are waited for with `poll`).
  ///
  /// The node is first opened with open(2) and asked `VIDIOC_QUERYCAP` directly, so a
  /// node that is no V4L2 device is reported as such (libv4l2 would print its own
  /// complaint); then libv4l2 takes the fd over (`v4l2_fd_open`).
  /// - Throws: `V4L2Error` `.noSuchDevice`, `.permissionDenied`, `.deviceBusy`,
  ///   `.notCaptureDevice`, …
  package init(path: String) throws {
    self.path = path
    let raw = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    if raw < 0 { throw V4L2Error(errno: errno, operation: "open", device: path) }
    var cap = v4l2_capability()
    var status: Int32
    repeat { status = camfx_ioctl(raw, CAMFX_VIDIOC_QUERYCAP, &cap) } while status < 0 && errno == EINTR
    if status < 0 {
      let code = errno
      close(raw)
      if code == ENOTTY || code == EINVAL {
        throw V4L2Error(.notCaptureDevice, code: code, operation: "VIDIOC_QUERYCAP", device: path,
                        detail: "it does not answer V4L2 queries")
      }
      throw V4L2Error(errno: code, operation: "VIDIOC_QUERYCAP", device: path)
    }
    let fd = camfx_v4l2_fd_open(raw, 0)
    if fd < 0 {
      let code = errno
      close(raw)
      throw V4L2Error(errno: code, operation: "v4l2_fd_open", device: path)
    }
    self.fd = fd
  }

  deinit { _ = camfx_v4l2_close(fd) }

  /// Runs one ioctl, retrying when a signal interrupts it.
  /// - Parameters:
  ///   - request: a `CAMFX_VIDIOC_*` request code from the shim.
  ///   - operation: the ioctl's name for error messages, e.g. `"VIDIOC_DQBUF"`.
  /// - Throws: `V4L2Error(errno:operation:device:)`.
  package func ioctl<T>(_ request: UInt, _ argument: inout T, _ operation: String) throws {
    while true {
      let result = withUnsafeMutablePointer(to: &argument) { camfx_v4l2_ioctl(fd, request, $0) }
      if result >= 0 { return }
      let code = errno
      if code == EINTR { continue }
      throw V4L2Error(errno: code, operation: operation, device: path)
    }
  }

  /// Like `ioctl`, but returns the `errno` instead of throwing (0 on success), for
  /// enumerations that end with `EINVAL` and optional features that answer `ENOTTY`.
  package func ioctlStatus<T>(_ request: UInt, _ argument: inout T) -> Int32 {
    while true {
      let result = withUnsafeMutablePointer(to: &argument) { camfx_v4l2_ioctl(fd, request, $0) }
      if result >= 0 { return 0 }
      let code = errno
      if code != EINTR { return code }
    }
  }
}

/// Reads a fixed-size C `char` array imported as a tuple (e.g. `v4l2_capability.card`).
func v4l2String<T>(_ tuple: T) -> String {
  withUnsafeBytes(of: tuple) { raw in
    let bytes = raw.prefix { $0 != 0 }
    return String(decoding: bytes, as: UTF8.self)
  }
}
