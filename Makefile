# stack — the README's commands. `make demo` and `make test` work on a fresh
# Debian 12 / Ubuntu machine with only the Swift toolchain installed: they
# install the C libraries first (as root; otherwise they print the command).

APT_PACKAGES := pkg-config libturbojpeg0-dev libopenblas-dev libfftw3-dev libpng-dev libtiff-dev libheif-dev libcfitsio-dev libraw-dev \
                liblcms2-dev zlib1g-dev libheif-examples libavif-bin libimage-exiftool-perl time man-db libxml2-utils zsh fish
SWIFT        ?= swift
DEMO_OUT     ?= out/street-stacked.jpg
export OPENBLAS_NUM_THREADS ?= 1
# Release builds use the widest vector instructions this machine has: AVX2
# and FMA (Intel Haswell, AMD Excavator or later), so the warp, fold and
# conversion loops run 8 floats wide instead of SSE's 4; and AVX-512 (F, CD,
# BW, DQ, VL: Intel Skylake-SP, AMD Zen 4 or later) on top, whose conversions
# and byte packing shorten the quantisation and the sorting network. Both
# define FUSED_MULTIPLY_ADD, so the resampling's weighted sums (TapSum) use
# fused multiply-adds: the two builds write the same bytes, which may differ
# in the last bit of a resampled value from a build without it (Swift never
# contracts a multiply and an add by itself; see docs/performance.md). The
# binary then needs such a CPU; CPU_FLAGS= builds for any x86-64.
HAS_FLAGS     = $(shell for f in $(1); do grep -qw $$f /proc/cpuinfo 2>/dev/null || exit 0; done; echo yes)
CPU_TARGET    = $(if $(call HAS_FLAGS,avx2 fma bmi2 movbe),$(if $(call HAS_FLAGS,avx512f avx512cd avx512bw avx512dq avx512vl),skylake-avx512,haswell))
CPU_FLAGS    ?= $(if $(CPU_TARGET),-Xswiftc -target-cpu -Xswiftc $(CPU_TARGET) -Xswiftc -DFUSED_MULTIPLY_ADD)
RELEASE      := $(SWIFT) build -c release $(CPU_FLAGS)

.PHONY: all deps build release demo test stress library-client release-check bench real-files real-files-heif slurm-test clean man install plot-check

all: build

## deps: install the missing apt packages (root), or print the command to do it.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Missing packages:$$missing"; \
	    echo "Run: sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

## build: debug build of everything.
build: deps
	$(SWIFT) build

## release: optimised build of the stack and make-scene executables.
release: deps
	$(RELEASE) --product stack
	$(RELEASE) --product make-scene

## demo: stack the bundled sample burst with the median, which removes the
## passers-by, and write a before/after picture (reference frame left, stack
## right); say where both are.
demo: release
	@mkdir -p $(dir $(DEMO_OUT))
	@bin=$$($(RELEASE) --show-bin-path); \
	"$$bin/stack" --mode median --output $(DEMO_OUT) --report $(basename $(DEMO_OUT)).json \
	  --before-after $(basename $(DEMO_OUT))-before-after.jpg Samples/street/frame_*.jpg && \
	echo "Stacked image (median of 8 frames): $(abspath $(DEMO_OUT))" && \
	echo "Before/after (reference frame left, stack right): $(abspath $(basename $(DEMO_OUT))-before-after.jpg)" && \
	echo "Report: $(abspath $(basename $(DEMO_OUT)).json)"

## test: build everything, run all test suites, then build and run the
## README's library client (make library-client). Two checks are targets of
## their own, which CI (.ci/run) runs right after this one: the release
## build checked end to end (make release-check: a release build of its own,
## about 5 minutes on 2 cores from clean) and the replay of the bad-input
## corpus under AddressSanitizer (make fuzz-replay: its own build, about 3
## minutes); make test stays within its 15 minutes without them.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory library-client

## stress: the failing-run stress suite at the round count that caught the
## pipeline teardown race (200 runs per case; make test runs 24). CI runs it
## after make test; several minutes.
STRESS_ROUNDS ?= 200
stress: deps
	$(SWIFT) build --build-tests
	STACK_STRESS_ROUNDS=$(STRESS_ROUNDS) $(SWIFT) test --skip-build --filter FailingRunStressTests

## library-client: the README's client package (Examples/LibraryClient),
## checked to be the code the README shows, built against this package by
## path and run: it must write its stack and remove the scene's objects.
library-client: deps
	Tests/library-client.sh

## release-check: the release build (with this CPU's flags, fused
## multiply-adds included) on a generated burst, every mode: --threads 1 and 2
## byte-identical, shifts within 0.1 px of the truth, float output within
## rounding of the debug build's (Tests/release-check.sh).
release-check: release
	$(SWIFT) build --product stack
	Tests/release-check.sh "$$($(RELEASE) --show-bin-path)" "$$($(SWIFT) build --show-bin-path)"

## bench: release build and the benchmark suite (large images; slow).
## PEERS=1 also runs ImageMagick, numpy + Pillow, scikit-image, OpenCV and
## Siril (the astro case; Debian package siril, driven by siril-cli) once each.
PEERS ?= 0
bench: deps
	$(RELEASE)
	@bin=$$($(RELEASE) --show-bin-path); \
	if ! [ -x /usr/bin/time ] && [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; fi; \
	if [ "$(PEERS)" = "1" ]; then \
	  if ! command -v convert-im6.q16 >/dev/null; then \
	    if [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq imagemagick; \
	    else echo "bench: ImageMagick missing: sudo apt-get install -y imagemagick"; fi; \
	  fi; \
	  if ! command -v siril-cli >/dev/null; then \
	    if [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq siril; \
	    else echo "bench: Siril missing: sudo apt-get install -y siril"; fi; \
	  fi; \
	  python3 -c "import numpy, PIL, skimage, cv2" 2>/dev/null || \
	    python3 -m pip install -q numpy pillow scikit-image opencv-python-headless || \
	    echo "bench: Python peers missing: pip install numpy pillow scikit-image opencv-python-headless"; \
	  "$$bin/stack-bench" --peers; \
	else \
	  "$$bin/stack-bench"; \
	fi
	Benchmarks/effect-bench.sh "$$($(RELEASE) --show-bin-path)"

## real-files: other projects' test images (libpng, libtiff, libjpeg-turbo,
## Pillow, astropy, scikit-image; fetched into .build/real-files) through the
## debug build, compared with Pillow and astropy (Tests/real-files/README.md).
## SOURCE="libpng pillow" limits it; fails on a crash, hang, leftover or
## memory amplification. Needs the network once; a few minutes. Then
## stack effect's GDepth check on exiv2's Google Camera photo (gdepth.py).
SOURCE ?=
real-files: deps
	@if ! [ -x /usr/bin/time ] && [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; fi
	$(SWIFT) build --product stack
	python3 Tests/real-files/sweep.py $(SOURCE)
	python3 Tests/real-files/gdepth.py

## real-files-heif: libheif's and pillow-heif's HEIF/HEIC/AVIF test files
## (fetched into .build/real-files) through the debug build, compared with
## heif-convert (Tests/real-files/heif.py). Needs the network once.
real-files-heif: deps
	$(SWIFT) build --product stack
	python3 Tests/real-files/heif.py

## man: the manual page .build/stack.1, made from the option table (`stack --generate-manual`).
MAN_PAGE := .build/stack.1
man: release
	"$$($(RELEASE) --show-bin-path)/stack" --generate-manual > $(MAN_PAGE)

## install: the release binary, its manual page and bash, zsh and fish
## completions under PREFIX (default /usr/local; DESTDIR for packaging).
PREFIX ?= /usr/local
install: man
	@bin=$$($(RELEASE) --show-bin-path); \
	install -D -m 755 "$$bin/stack" "$(DESTDIR)$(PREFIX)/bin/stack" && \
	install -D -m 644 $(MAN_PAGE) "$(DESTDIR)$(PREFIX)/share/man/man1/stack.1" && \
	mkdir -p "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d" && \
	"$$bin/stack" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/stack" && \
	"$$bin/stack" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_stack" && \
	"$$bin/stack" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/stack.fish" && \
	echo "Installed $(DESTDIR)$(PREFIX)/bin/stack, its manual page (man stack) and completions"

## plot-check: `--plot`'s SVG opened in a real browser (Debian's chromium,
## headless, installed when missing): the screenshot must differ from an
## empty page's (Tests/plot-check.sh). .ci/run calls it.
plot-check: deps
	@if ! command -v chromium >/dev/null && [ "$$(id -u)" = "0" ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; fi
	$(SWIFT) build --product stack
	$(SWIFT) build --product make-scene
	Tests/plot-check.sh "$$($(SWIFT) build --show-bin-path)"

## slurm-test: docs/cluster.md's Slurm job arrays and dependent merges on a
## single-node Slurm started here (root; installs slurm-wlm and munge when
## missing): the merged median must equal the one-shot bytes, the merged
## average the one-shot within float rounding. About a minute; not in `test`.
slurm-test: deps
	$(SWIFT) build --product stack
	$(SWIFT) build --product make-scene
	Tests/slurm-cluster.sh

clean:
	rm -rf .build out

# Fuzzing and sanitizer targets live in Fuzz/fuzz.mk.
-include Fuzz/fuzz.mk
