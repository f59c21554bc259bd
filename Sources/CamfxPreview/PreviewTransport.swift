import NIOCore

/// What a preview server puts first on each connection, below HTTP: TLS for an
/// HTTPS preview (`CamfxPreviewTLS`'s `PreviewTLS`). Without one the server speaks
/// plain HTTP.
public protocol PreviewTransport: Sendable {
  /// The URL scheme pages are served under (`https`): the page's own origin, which
  /// `POST`s and WebSocket upgrades must come from.
  var scheme: String { get }
  /// Adds the transport's handlers to a new connection's pipeline, on its event loop.
  func addHandlers(to channel: any Channel) throws
}
