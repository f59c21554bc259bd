// swift-tools-version:6.0
// camfx: a headless frame-processing pipeline for Linux.
//
//   source (testsrc | PNG | file | V4L2 camera) -> filter chain -> adaptor -> movie writer / PNG
//
// The C libraries are reached through thin system-library targets (CPNG, CFFmpeg, CV4L2,
// CALSA); everything Swift cannot import lives in their shim.h as static inline wrappers.
import PackageDescription

let package = Package(
  name: "camfx",
  products: [
    .library(name: "Camfx", targets: ["Camfx"]),
    // The preview server and its JPEG encoder (the benchmarks measure it).
    .library(name: "CamfxPreview", targets: ["CamfxPreview"]),
    .executable(name: "camfx", targets: ["CamfxCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // The preview server's HTTP and the live view's WebSocket (NIOCore, NIOPosix,
    // NIOHTTP1, NIOWebSocket only).
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    // `camfx run FILE.yml` reads its cameras with it (the CLI only).
    .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    // The preview's HTTPS (`--preview-tls`): only CamfxPreviewTLS, which only the CLI
    // links, so the test bundle never builds BoringSSL.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    // /metrics's text format (the preview only; a clean build takes about a second more).
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
  ],
  targets: [
    // C libraries, one thin module each.
    .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CFFmpeg", pkgConfig: "libavformat",
      providers: [.apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
    .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
    .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
    .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
    .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    // The archive's HTTP, signed with libcurl's AWS Signature V4, and libcrypto's MD5.
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev", "libssl-dev"])]),
    // frei0r plugins are loaded at run time (dlopen): only the header, nothing linked.
    .systemLibrary(name: "CFrei0r", providers: [.apt(["frei0r-plugins-dev"])]),

    // The one C function Swift cannot be: a signal handler that writes the signal and
    // its sender (si_pid) to a pipe (StopSignals).
    .target(name: "CCamfxSignals"),

    // Core: pixel buffers, pools, geometry, time, the filter API, rings. No C of its own.
    .target(name: "CamfxCore"),

    // Pixel-format converters every stage uses (BGRA, yuv420p, YUYV, NV12, RGB). Pure
    // Swift SIMD, optimized in debug builds too: unoptimized it is ~100x slower, too
    // slow for a camera (or the qemu guest tests).
    .target(name: "CamfxPixelFormats", dependencies: ["CamfxCore"], swiftSettings: [.unsafeFlags(["-O"])]),

    // I/O modules.
    .target(name: "CamfxPNG", dependencies: ["CamfxCore", "CPNG"]),
    // The thin Swift side of FFmpeg's C objects (frames, packets, codec contexts,
    // dictionaries, libswscale, errors), which frames, capture and media all build on.
    .target(name: "CamfxFFmpeg", dependencies: ["CamfxCore", "CamfxPixelFormats", "CFFmpeg"]),
    // The frames every stage passes on (BGRA buffers, yuv420p pictures in AVFrames an
    // encoder takes by reference, blocks of sound) and the one protocol sources yield
    // them through.
    .target(name: "CamfxFrames", dependencies: ["CamfxCore", "CamfxFFmpeg", "CFFmpeg"]),
    .target(name: "CamfxMedia", dependencies: ["CamfxCore", "CamfxFFmpeg", "CamfxFrames", "CamfxPixelFormats", "CFFmpeg"]),
    // MQTT publishing (libmosquitto): a bounded queue that outlives a broker's absence.
    .target(name: "CamfxMQTT", dependencies: ["CamfxCore", "CMosquitto"]),
    // Motion detection on the luma plane. Optimized in debug builds too: it reads every
    // pixel of every frame.
    .target(name: "CamfxMotion", dependencies: ["CamfxCore"], swiftSettings: [.unsafeFlags(["-O"])]),
    // The devices cameras and microphones read from: V4L2 nodes, their formats and
    // controls, the decoder their MJPEG and H.264 frames need, ALSA devices. The
    // sources themselves (V4L2Camera, ALSAMicrophone) are in Camfx/Sources/.
    .target(
      name: "CamfxCapture",
      dependencies: [
        "CamfxCore", "CamfxFFmpeg", "CamfxFrames", "CamfxPixelFormats", "CFFmpeg", "CV4L2", "CALSA", "CTurboJPEG",
      ]),

    // Built-in filters: each on the same public API a user's own filter uses.
    .target(name: "GrayscaleFilter", dependencies: ["CamfxCore"], path: "filters/Grayscale"),
    .target(name: "MirrorFilter", dependencies: ["CamfxCore"], path: "filters/Mirror"),
    .target(name: "CropFilter", dependencies: ["CamfxCore"], path: "filters/Crop"),
    .target(name: "WatermarkFilter", dependencies: ["CamfxCore", "CamfxPNG"], path: "filters/Watermark"),
    // Optimized in debug builds too, like CamfxCapture: the resampling loops run ~50x
    // slower unoptimized, too slow for the pipeline tests that scale movies.
    .target(
      name: "ScaleFilter", dependencies: ["CamfxCore"], path: "filters/Scale", swiftSettings: [.unsafeFlags(["-O"])]),
    .target(name: "FitFilter", dependencies: ["CamfxCore", "ScaleFilter"], path: "filters/Fit"),
    .target(name: "PadFilter", dependencies: ["CamfxCore"], path: "filters/Pad"),
    // Optimized in debug builds too: its 16-pixel SIMD steps run ~100x slower unoptimized.
    .target(
      name: "ColorFilter", dependencies: ["CamfxCore"], path: "filters/Color", swiftSettings: [.unsafeFlags(["-O"])]),
    .target(name: "Frei0rFilter", dependencies: ["CamfxCore", "CFrei0r"], path: "filters/Frei0r"),
    .target(name: "TextFilter", dependencies: ["CamfxCore", "CFreeType"], path: "filters/Text"),
    .target(name: "RotateFilter", dependencies: ["CamfxCore"], path: "filters/Rotate", swiftSettings: [.unsafeFlags(["-O"])]),

    // Several cameras in one picture (grid, stacks, picture-in-picture) on yuv420p, with
    // the scale filter's kernel and the text filter's cards. Optimized in debug builds
    // too, like the kernels it calls: it copies and fills whole planes per frame.
    .target(
      name: "CamfxMosaic", dependencies: ["CamfxCore", "CamfxFrames", "ScaleFilter", "TextFilter"],
      swiftSettings: [.unsafeFlags(["-O"])]),

    // The library users link: registry of built-ins, every source and output, taps,
    // sessions, bench.
    .target(
      name: "Camfx",
      dependencies: [
        "CamfxCore", "CamfxFFmpeg", "CamfxFrames", "CamfxPixelFormats", "CamfxPNG", "CamfxMedia", "CamfxCapture", "CamfxMQTT", "CamfxMotion", "CamfxMosaic", "CCamfxSignals",
        "CFFmpeg", "CV4L2", "CALSA", "CTurboJPEG",
        "GrayscaleFilter", "MirrorFilter", "CropFilter", "WatermarkFilter", "ScaleFilter", "FitFilter",
        "PadFilter", "RotateFilter", "TextFilter", "Frei0rFilter", "ColorFilter",
      ]),
    // The preview server: MJPEG, snapshots and figures over HTTP, on SwiftNIO.
    .target(
      name: "CamfxPreview",
      dependencies: [
        "Camfx", "CamfxCore", "CamfxMedia", "CamfxPNG", "CamfxPixelFormats", "CTurboJPEG",
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      // Optimized in debug builds too: the JPEG range stretch runs per pixel.
      swiftSettings: [.unsafeFlags(["-O"])]),
    .target(
      name: "CamfxPreviewTLS",
      dependencies: [
        "CamfxPreview", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    // Finished files uploaded to S3-compatible object storage (`--archive`).
    .target(name: "CamfxArchive", dependencies: ["Camfx", "CamfxCore", "CCurl"]),
    .executableTarget(
      name: "CamfxCLI",
      dependencies: [
        "Camfx", "CamfxArchive", "CamfxMQTT", "CamfxPreview", "CamfxPreviewTLS", "CamfxMosaic", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Yams", package: "Yams"),
      ]),

    // examples/: programs built on the library's public API alone (a test runs them).
    .executableTarget(name: "OwnOutputExample", dependencies: ["Camfx"], path: "examples/OwnOutput"),

    .testTarget(name: "CamfxCoreTests", dependencies: ["CamfxCore"]),
    .testTarget(name: "CamfxMotionTests", dependencies: ["CamfxMotion"]),
    .testTarget(name: "CamfxMosaicTests", dependencies: ["CamfxMosaic", "CamfxCore", "CamfxFrames", "CamfxPNG", "ScaleFilter"]),
    .testTarget(name: "CamfxFramesTests", dependencies: ["CamfxFFmpeg", "CamfxFrames", "CFFmpeg"]),
    .testTarget(name: "FilterTests", dependencies: ["Camfx", "CamfxMedia", "CamfxCapture", "CamfxPixelFormats"]),
    .testTarget(name: "CamfxPNGTests", dependencies: ["CamfxPNG"], exclude: ["Fixtures"]),
    .testTarget(name: "CamfxMediaTests", dependencies: ["Camfx", "CamfxCapture", "CamfxFFmpeg", "CamfxFrames", "CamfxPixelFormats", "CFFmpeg"], exclude: ["Fixtures"]),
    .testTarget(name: "CamfxCaptureTests", dependencies: ["Camfx", "CamfxCapture", "CamfxFFmpeg", "CamfxFrames", "CamfxPixelFormats", "CFFmpeg"]),
    .testTarget(
      name: "CamfxPreviewTests",
      dependencies: [
        "Camfx", "CamfxPNG", "CamfxPreview", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
      ]),
    .testTarget(name: "CamfxArchiveTests", dependencies: ["CamfxArchive"]),
    .testTarget(name: "CamfxCLITests", dependencies: ["Camfx", "CFFmpeg", "CamfxPNG"]),
    .testTarget(name: "PipelineTests", dependencies: ["Camfx", "CamfxCapture", "CamfxMedia", "CamfxPNG", "CamfxPixelFormats"]),
  ]
)

// make test's second pass of the kernels' tests, in a build for this CPU with its intrinsic
// kernels, needs only the test targets that hold those tests: with this set, the test
// bundle is only theirs, and that build compiles neither SwiftNIO nor the command.
if Context.environment["CAMFX_KERNEL_TESTS_ONLY"] == "1" {
  let kernelTestTargets: Set = ["CamfxCaptureTests", "CamfxMediaTests", "FilterTests"]
  package.targets.removeAll { $0.type == .test && !kernelTestTargets.contains($0.name) }
}
