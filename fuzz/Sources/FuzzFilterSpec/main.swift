import FuzzSupport

// libFuzzer's driver, with fuzzFilterSpec as the test function (see FuzzerDriver.swift).
runFuzzer { data, size in fuzzFilterSpec(data, size) }
