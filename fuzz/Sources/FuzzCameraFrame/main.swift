import FuzzSupport

// libFuzzer's driver, with fuzzCameraFrame as the test function (see FuzzerDriver.swift).
runFuzzer { data, size in fuzzCameraFrame(data, size) }
