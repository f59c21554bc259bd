// swift-tools-version:6.0
// libFuzzer targets for camfx's parsers of untrusted input (`make fuzz`): a sub-package
// so that the product never links libFuzzer. Built with -sanitize=fuzzer,address on
// every target (`make fuzz` passes -sanitize=address and libFuzzer's coverage), so the
// camfx modules are instrumented too.
import PackageDescription

let fuzzerTarget = { (name: String) -> Target in
  .executableTarget(
    name: name, dependencies: ["FuzzSupport", .product(name: "Camfx", package: "camfx")],
    // libFuzzer without its main (SwiftPM names an executable's entry point itself):
    // main.swift hands the target's test function to LLVMFuzzerRunDriver.
    // libpng instrumented for coverage (build-libpng.sh), whole: its definitions come
    // first, ahead of the system's libpng16.so that the camfx modules name.
    linkerSettings: [
      .unsafeFlags([
        "-Xlinker", "/opt/swift/usr/lib/clang/21/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a",
        "-Xlinker", "--whole-archive", "-Xlinker", Context.packageDirectory + "/.build/libpng/libpng16.a",
        "-Xlinker", "--no-whole-archive",
      ]),
      .linkedLibrary("stdc++"), .linkedLibrary("z"), .linkedLibrary("m"),
    ])
}

let package = Package(
  name: "camfx-fuzz",
  dependencies: [.package(name: "camfx", path: "../")],
  targets: ["FuzzFilterSpec", "FuzzPNG", "FuzzMovie", "FuzzCameraFrame"].map(fuzzerTarget) + [.target(name: "FuzzSupport")]
)
