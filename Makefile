# camfx: the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
OUT   ?= out

.PHONY: run test setup build release bench bench-peers clean

## make run: install packages, build, and record a short filtered clip from the test source
run: setup build
	@mkdir -p $(OUT)
	.build/debug/camfx snapshot --filter watermark --filter grayscale -y -o $(OUT)/snapshot.png
	@echo "wrote $(OUT)/snapshot.png"

## make test: install packages, build, and run the whole test suite
test:
	bash scripts/setup.sh --test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	bash scripts/guest/test.sh

setup:
	bash scripts/setup.sh

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

## make bench: filter and pipeline throughput (release build)
bench: setup release
	.build/release/camfx bench

## make bench-peers: camfx next to libyuv, libavfilter and libswscale (benchmarks/ sub-package)
bench-peers:
	bash scripts/setup.sh --bench
	cd benchmarks && $(SWIFT) run -c release camfx-compare

clean:
	rm -rf .build $(OUT)
