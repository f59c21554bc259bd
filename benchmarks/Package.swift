// swift-tools-version:6.1
// camfx benchmarks: a sub-package, so the harness (ordo-one/benchmark) and the peer
// libraries it measures against (libyuv, libavfilter, libswscale) stay out of camfx.
//
//   cd benchmarks && swift package benchmark          # every benchmark, release build
//   swift run -c release camfx-compare                # peer table + results/comparison.png
//
// The benchmark plugin only discovers executable targets under `Benchmarks/<Name>/`.
import PackageDescription

let package = Package(
  name: "camfx-benchmarks",
  dependencies: [
    .package(name: "camfx", path: "../"),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The peers, behind plain C functions. libyuv ships no pkg-config file, so it is
    // linked by name; its headers are included only by CPeers' own .c files.
    .target(
      name: "CPeers",
      linkerSettings: [
        .linkedLibrary("yuv"), .linkedLibrary("avfilter"), .linkedLibrary("swscale"), .linkedLibrary("avcodec"),
        .linkedLibrary("avutil"),
      ]),
    // Frames, peer handles and the operation table shared by the benchmarks and camfx-compare.
    .target(
      name: "BenchSupport",
      dependencies: [
        "CPeers", .product(name: "Camfx", package: "camfx"), .product(name: "CamfxPreview", package: "camfx"),
      ]),
    .executableTarget(name: "camfx-compare", dependencies: ["BenchSupport", "CPeers"]),

    .executableTarget(
      name: "Kernels",
      dependencies: [
        "BenchSupport",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/Kernels",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    .executableTarget(
      name: "Pipeline",
      dependencies: [
        "BenchSupport",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/Pipeline",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
  ]
)
