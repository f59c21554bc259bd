import Camfx

/// `--filter` text as a user types it: parse it and build the chain; any error is fine,
/// a crash is not.
func fuzzFilterSpec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if var chain = try? FilterRegistry.builtin.makeChain([text]) {
    _ = try? chain.configure(input: FrameGeometry(width: 64, height: 48))
  }
  return 0
}
