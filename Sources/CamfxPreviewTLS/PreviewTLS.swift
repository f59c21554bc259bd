import CamfxPreview
import Foundation
import NIOCore
import NIOSSL

/// HTTPS and WSS for the preview server (`--preview-tls CERT KEY`): a certificate
/// chain and its private key, PEM files read once at start-up. A client that speaks
/// plain HTTP to the port fails the handshake and is closed.
///
///     let tls = try PreviewTLS(certificate: "cert.pem", key: "key.pem")
///     let server = try PreviewServer(address: address, cameras: cameras, transport: tls)
///
/// Its own module, so that only what serves HTTPS builds swift-nio-ssl.
public struct PreviewTLS: PreviewTransport {
  private let context: NIOSSLContext

  /// - Throws: `PreviewError` naming the file that cannot be read or used.
  public init(certificate: String, key: String) throws(PreviewError) {
    for (what, path) in [("certificate", certificate), ("key", key)] where !FileManager.default.isReadableFile(atPath: path) {
      throw PreviewError("cannot read the TLS \(what) '\(path)': no such file, or not readable")
    }
    let chain: [NIOSSLCertificate]
    do {
      chain = try NIOSSLCertificate.fromPEMFile(certificate)
    } catch {
      throw PreviewError("cannot read the TLS certificate '\(certificate)' (expected PEM): \(error)")
    }
    guard !chain.isEmpty else { throw PreviewError("the TLS certificate '\(certificate)' holds no certificate") }
    let privateKey: NIOSSLPrivateKey
    do {
      privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
    } catch {
      throw PreviewError("cannot read the TLS key '\(key)' (expected a PEM private key): \(error)")
    }
    let configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    do {
      context = try NIOSSLContext(configuration: configuration)
    } catch {
      throw PreviewError("the TLS key '\(key)' does not go with the certificate '\(certificate)': \(error)")
    }
  }

  public var scheme: String { "https" }

  public func addHandlers(to channel: any Channel) throws {
    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
  }
}
