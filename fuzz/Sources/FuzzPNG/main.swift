import FuzzSupport

// libFuzzer's driver, with fuzzPNG as the test function (see FuzzerDriver.swift).
runFuzzer { data, size in fuzzPNG(data, size) }
