#!/usr/bin/env bash
# Repair's oracle over every bit of every fragment header (issue 35): the test that
# `make test` samples (one bit of every third byte of every `moof` and `mdat` header),
# here with all eight bits of every byte, over the five recording shapes of
# Tests/CamfxMediaTests/RepairOracleTests.swift. Prints, per shape, the flips, how many
# the repaired file kept every packet of, how many left the damaged fragment's packets
# out (reported), and the failures (the property broken: a packet of an untouched
# fragment missing or moved, a sample that was not recorded, a longer file, a false
# report). About 30 minutes on 2 cores.
#
#   bash benchmarks/repair-oracle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests >/dev/null
CAMFX_REPAIR_ORACLE=full .build/debug/camfxPackageTests.xctest CamfxMediaTests.RepairOracleTests 2>&1 |
  grep -E "repair oracle|error:|Executed" | cut -c1-400
