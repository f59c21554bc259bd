# camfx: the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
OUT   ?= out
# Release builds are tuned for the CPU they are built on (camfx is built where it runs,
# and libyuv-style kernels need AVX2 to be fast). For a binary to copy to other
# x86-64 machines: make release CPU=x86-64
CPU   ?= native
# The intrinsic kernels (BGRA->yuv420p, YUYV/NV12/I420->BGRA, scale) are compiled in only when
# the build targets this CPU and it has the instructions (the compiler crashes on them
# for a target without, and Swift has no #if for CPU features): CAMFX_AVX2 with AVX2,
# CAMFX_AVX512 with AVX-512 BW as well; else the portable SIMD kernels run.
# AVX2=no (which implies AVX512=no) or AVX512=no leaves them out.
cpu_has = $(shell grep -qw $(1) /proc/cpuinfo 2>/dev/null && echo yes)
AVX2   ?= $(if $(filter native,$(CPU)),$(call cpu_has,avx2),no)
AVX512 ?= $(if $(filter yes,$(AVX2)),$(call cpu_has,avx512bw),no)
KERNEL_FLAGS = $(if $(filter yes,$(AVX2)),-Xswiftc -DCAMFX_AVX2) $(if $(filter yes,$(AVX512)),-Xswiftc -DCAMFX_AVX512)
# The Swift runtime and Foundation linked in (--static-swift-stdlib): the installed camfx
# runs without a Swift toolchain on the machine, starts without resolving the runtime's
# symbols, and keeps none of the shared libraries' relocated pages resident (README:
# the live figures).
RELEASE_FLAGS = $(RUN_FLAGS) --static-swift-stdlib
# What `swift run` takes of them (it refuses --static-swift-stdlib): the benchmarks run
# where they are built.
RUN_FLAGS = -c release -Xswiftc -target-cpu -Xswiftc $(CPU) $(KERNEL_FLAGS)
# The kernels' tests again in a debug build for this CPU with its intrinsic kernels
# (own build path: the default debug build stays portable for the qemu guest). Only
# the test bundle (SwiftPM's camfxPackageTests) is built there, and with
# CAMFX_KERNEL_TESTS_ONLY=1 the manifest leaves it only the three test targets that hold
# these tests: the command, the preview server and SwiftNIO are not built. It runs after
# the unit tests: built beside them, even at nice 19, it made them a third slower and a
# real-time one fail.
NATIVE_KERNEL_FLAGS = $(if $(call cpu_has,avx2),-Xswiftc -DCAMFX_AVX2) $(if $(call cpu_has,avx512bw),-Xswiftc -DCAMFX_AVX512)
NATIVE_TEST_FLAGS = --build-path .build-native -Xswiftc -target-cpu -Xswiftc native $(NATIVE_KERNEL_FLAGS)
KERNEL_TESTS = BGRAToYUV420Tests|YUVToBGRAKernelTests|PixelConverterTests|ReshapingFilterTests|CompressedFrameDecoderTests

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: run test setup build release bench bench-peers bench-record install uninstall fuzz clean

## make run: install packages, build, record a 3 s filtered clip and take a still (test source)
run: setup release
	@mkdir -p $(OUT)
	.build/release/camfx record --duration 3s --audio sine=440 --filter watermark --filter mirror -y -o $(OUT)/clip.mp4
	.build/release/camfx snapshot --filter watermark --filter grayscale -y -o $(OUT)/snapshot.png
	@echo "wrote $(OUT)/clip.mp4 and $(OUT)/snapshot.png"

## make test: install packages, build, and run the whole test suite
test:
	bash scripts/setup.sh --test
	$(SWIFT) build --build-tests
	bash scripts/run-unit-tests.sh
	@if grep -qw avx2 /proc/cpuinfo; then \
	  echo "kernel tests with the intrinsic kernels ($(strip $(NATIVE_KERNEL_FLAGS)), .build-native)"; \
	  CAMFX_KERNEL_TESTS_ONLY=1 $(SWIFT) build --product camfxPackageTests $(NATIVE_TEST_FLAGS) && \
	  CAMFX_KERNEL_TESTS_ONLY=1 $(SWIFT) test --skip-build $(NATIVE_TEST_FLAGS) --filter '$(KERNEL_TESTS)'; \
	else echo "SKIP kernel tests with the intrinsic kernels: this CPU has no AVX2"; fi
	bash scripts/guest/test.sh
	bash scripts/check-install.sh

setup:
	bash scripts/setup.sh

build:
	$(SWIFT) build

release:
	$(SWIFT) build $(RELEASE_FLAGS)

## make bench: filter and pipeline throughput (release build)
bench: setup release
	.build/release/camfx bench

## make bench-peers: camfx next to libyuv, libavfilter and libswscale (benchmarks/ sub-package)
bench-peers:
	bash scripts/setup.sh --bench
	cd benchmarks && $(SWIFT) run $(RUN_FLAGS) camfx-compare

## make bench-record: transcode side by side with ffmpeg, and 60 s of live 1080p30 (issue 3)
bench-record: setup release
	bash benchmarks/record-vs-ffmpeg.sh

## make install PREFIX=/usr/local: the release binary, its man page and bash/zsh/fish completions
MAN_DIR = .build/man
# The plugin builds every product again with its own flags before it reads the manual
# from camfx: where a debug build is there already (`make test` made one), it reads it
# from that (the text is the same in any build) instead of building everything in release
# a second time; else in release, as a user who ran only `make release` has nothing else.
MAN_CONFIGURATION = $(if $(wildcard .build/debug/camfx),debug,release)
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/release/camfx $(DESTDIR)$(PREFIX)/bin/camfx
	mkdir -p $(MAN_DIR)
	$(SWIFT) package --allow-writing-to-directory $(MAN_DIR) generate-manual --multi-page --configuration $(MAN_CONFIGURATION) --output-directory $(MAN_DIR)
	install -m 644 $(MAN_DIR)/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(DESTDIR)$(PREFIX)/bin/camfx --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/camfx
	$(DESTDIR)$(PREFIX)/bin/camfx --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_camfx
	$(DESTDIR)$(PREFIX)/bin/camfx --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/camfx.fish

## make fuzz: libFuzzer on the filter-spec parser, the PNG loader, movie input and camera frames (FUZZ_SECONDS each, default 120)
FUZZ_SECONDS ?= 120
FUZZ_FLAGS = -c release -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
fuzz: setup
	@# The fuzz package keeps camfx's targets as its first build saw them: a module added
	@# since is "no such module" there until its build folder goes.
	if [ -d fuzz/.build ] && ! [ fuzz/.build/camfx-manifest.stamp -nt Package.swift ]; then rm -rf fuzz/.build; fi
	bash fuzz/build-libpng.sh
	cd fuzz && $(SWIFT) build $(FUZZ_FLAGS)
	touch fuzz/.build/camfx-manifest.stamp
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/camfx $(DESTDIR)$(PREFIX)/share/man/man1/camfx.1 $(DESTDIR)$(PREFIX)/share/man/man1/camfx.*.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/camfx $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_camfx \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/camfx.fish

clean:
	rm -rf .build .build-native fuzz/.build $(OUT)
