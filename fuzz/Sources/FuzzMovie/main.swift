import FuzzSupport

// libFuzzer's driver, with fuzzMovie as the test function (see FuzzerDriver.swift).
runFuzzer { data, size in fuzzMovie(data, size) }
