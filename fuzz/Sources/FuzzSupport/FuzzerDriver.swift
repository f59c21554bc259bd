import Glibc
/// libFuzzer's `LLVMFuzzerRunDriver` (libclang_rt.fuzzer_no_main): it parses the
/// command line (`-max_total_time=60 corpus/`) and calls `test` with every input.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// Writes the fuzzer's bytes to a scratch file named with `suffix` (the readers under
/// test take paths, as the commands do), runs `body` on its path, and removes it.
public func withInputFile(_ data: UnsafePointer<UInt8>, _ size: Int, suffix: String, _ body: (String) -> Void) {
  let path = "/tmp/camfx-fuzz-\(getpid())\(suffix)"
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return }
  _ = write(fd, data, size)
  close(fd)
  body(path)
  unlink(path)
}
