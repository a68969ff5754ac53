# Fuzzing and AddressSanitizer targets (included by the Makefile).
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_FORMATS="jpeg png tiff fits heif ser exif registration"]
#       builds .build/fuzz/stack-fuzz (libFuzzer + ASan), fuzzes each target
#       for FUZZ_SECONDS over a scratch copy of Fuzz/corpus/<target>, writes
#       crash/timeout/leak inputs to fuzz-out/, exits 1 if anything was found.
#   make fuzz-build      only build the harness
#   make fuzz-replay     run the harness once over every committed corpus and
#                        regression file (ASan; ~14 s once built)
#   make test-asan       fuzz-replay, then the ImageIO and FuzzRegression
#                        test suites built with -sanitize=address
#                        (.build/asan; set ASAN_SWIFT_TEST=0 to skip that part)
#   make fuzz-clean      remove .build/fuzz and fuzz-out
#
# The harness is compiled with swiftc directly, not through Package.swift:
# Registration as its own module, then the Stacker sources plus
# Fuzz/*.swift as module `Stacker` (so internal decoder functions such as
# EXIF and TIFFReader are callable). Inputs tagged SEXF / SREG run the EXIF
# and registration modes. See docs/fuzzing.md.

SWIFTC        ?= swiftc
FUZZ_SECONDS  ?= 60
FUZZ_FORMATS  ?= jpeg png tiff fits heif ser exif registration
FUZZ_MAX_LEN  ?= 65536
# Registration inputs: tag + 8 header bytes + two 64×64 planes of samples.
FUZZ_MAX_LEN_REGISTRATION ?= 8204
FUZZ_DIR      := .build/fuzz
FUZZ_OUT      := fuzz-out
FUZZ_BIN      := $(FUZZ_DIR)/stack-fuzz
ASAN_BUILD    := .build/asan
ASAN_SWIFT_TEST ?= 1

FUZZ_REG_SRC  := $(shell find Sources/Registration -name '*.swift' | LC_ALL=C sort)
FUZZ_STK_SRC  := $(shell find Sources/Stacker -name '*.swift' | LC_ALL=C sort)
FUZZ_HARNESS  := $(sort $(wildcard Fuzz/*.swift))

# C modules: -I on every folder holding a module.modulemap under
# Sources/C*, plus pkg-config, so a new C module needs no edit here.
# (LibRaw is opened with dlopen, like cfitsio, so it needs no flags here;
# their two C targets' loader.c, which define the function tables, are
# compiled into FUZZ_LOADERS.)
FUZZ_PKGS     := libturbojpeg libpng libtiff-4 libheif cfitsio fftw3f openblas lcms2 zlib
FUZZ_CMODMAPS := $(sort $(wildcard Sources/C*/module.modulemap Sources/C*/include/module.modulemap))
FUZZ_CMODS    := $(foreach m,$(FUZZ_CMODMAPS),-I $(patsubst %/,%,$(dir $(m))))
FUZZ_CHEADERS := $(sort $(wildcard Sources/C*/shim.h Sources/C*/include/shim.h))
FUZZ_LOADERS  := $(FUZZ_DIR)/CFITSIO-loader.o $(FUZZ_DIR)/CLibRaw-loader.o
FUZZ_PKG_CFLAGS = $(foreach f,$(shell pkg-config --cflags $(FUZZ_PKGS)),-Xcc $(f))
FUZZ_PKG_LIBS   = $(foreach f,$(shell pkg-config --libs $(FUZZ_PKGS)),$(if $(filter -L%,$(f)),$(f) -Xlinker -rpath -Xlinker $(patsubst -L%,%,$(f)),$(f)))
# -package-name: Stacker uses Registration's `package` declarations, which a
# module sees only when both are compiled into the same package (SwiftPM
# passes the same flag).
FUZZ_SWIFTFLAGS := -use-ld=lld -swift-version 6 -parse-as-library -O -g -enforce-exclusivity=checked -package-name stack

# Options for every libFuzzer run. -timeout: one input taking >10 s is a hang.
FUZZ_RUN_FLAGS := -rss_limit_mb=2048 -timeout=10 -print_final_stats=1

# ASan: fail on leaks in the replay too; keep reports symbolised.
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=1:symbolize=1:allocator_may_return_null=1
# Leaks of other projects' libraries, reproduced without our code (see the file).
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/Fuzz/lsan.supp:print_suppressions=0

.PHONY: fuzz fuzz-build fuzz-replay fuzz-clean test-asan

$(FUZZ_DIR)/mods/Registration.swiftmodule $(FUZZ_DIR)/Registration.o: $(FUZZ_REG_SRC) $(FUZZ_CHEADERS) Fuzz/fuzz.mk
	@mkdir -p $(FUZZ_DIR)/mods
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) -sanitize=fuzzer,address -module-name Registration -wmo \
	  $(FUZZ_CMODS) $(FUZZ_PKG_CFLAGS) \
	  -emit-module -emit-module-path $(FUZZ_DIR)/mods/Registration.swiftmodule \
	  -c -o $(FUZZ_DIR)/Registration.o $(FUZZ_REG_SRC)
	@# swiftc leaves an output it would write unchanged as it was, mtime
	@# included, so without this the rule runs again on every make.
	@touch $(FUZZ_DIR)/Registration.o $(FUZZ_DIR)/mods/Registration.swiftmodule

$(FUZZ_DIR)/%-loader.o: Sources/%/loader.c Sources/%/include/shim.h Fuzz/fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	clang -O1 -g -fsanitize=address,fuzzer-no-link $(shell pkg-config --cflags cfitsio) -I Sources/$*/include -c -o $@ $<

$(FUZZ_BIN): $(FUZZ_STK_SRC) $(FUZZ_HARNESS) $(FUZZ_DIR)/Registration.o $(FUZZ_LOADERS) $(FUZZ_CHEADERS) Fuzz/fuzz.mk
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) -sanitize=fuzzer,address -module-name Stacker \
	  -I $(FUZZ_DIR)/mods $(FUZZ_CMODS) $(FUZZ_PKG_CFLAGS) \
	  $(FUZZ_STK_SRC) $(FUZZ_HARNESS) $(FUZZ_DIR)/Registration.o $(FUZZ_LOADERS) \
	  $(FUZZ_PKG_LIBS) -o $@

## fuzz-build: the libFuzzer + ASan harness in .build/fuzz/stack-fuzz.
fuzz-build: deps $(FUZZ_BIN)

## fuzz: fuzz each format for FUZZ_SECONDS; non-zero exit when something is found.
fuzz: fuzz-build
	@mkdir -p $(FUZZ_OUT); found=0; \
	for fmt in $(FUZZ_FORMATS); do \
	  corpus=$(FUZZ_DIR)/corpus-$$fmt; mkdir -p $$corpus; \
	  cp -a Fuzz/corpus/$$fmt/. $$corpus/; \
	  if [ -d Fuzz/regressions ]; then cp -a Fuzz/regressions/. $$corpus/; fi; \
	  log=$(FUZZ_DIR)/fuzz-$$fmt.log; \
	  echo "== fuzzing $$fmt for $(FUZZ_SECONDS) s (corpus $$corpus, log $$log)"; \
	  maxlen=$(FUZZ_MAX_LEN); [ $$fmt = registration ] && maxlen=$(FUZZ_MAX_LEN_REGISTRATION); \
	  dict=; [ -f Fuzz/$$fmt.dict ] && dict=-dict=Fuzz/$$fmt.dict; \
	  only=; case $$fmt in heif|ser) only=STACK_FUZZ_ONLY=$$fmt;; esac; \
	  env $$only ./$(FUZZ_BIN) $(FUZZ_RUN_FLAGS) -max_len=$$maxlen -max_total_time=$(FUZZ_SECONDS) \
	    $$dict -artifact_prefix=$(FUZZ_OUT)/$$fmt- $$corpus > $$log 2>&1; rc=$$?; \
	  execs=$$(grep -h 'stat::number_of_executed_units' $$log | awk '{s+=$$2} END {print s+0}'); \
	  cov=$$(grep -hE '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' $$log | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/cov \1, ft \2/p'); \
	  arts=$$(ls $(FUZZ_OUT)/$$fmt-* 2>/dev/null | wc -l); \
	  if [ $$rc -ne 0 ] || [ $$arts -gt 0 ]; then \
	    found=1; echo "   $$fmt: $$execs executions, $$cov — FOUND a problem (exit $$rc):"; \
	    ls -1 $(FUZZ_OUT)/$$fmt-* 2>/dev/null | sed 's/^/     /'; \
	    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|Fatal error|SUMMARY' $$log | sed 's/^/     /'; \
	  else \
	    echo "   $$fmt: $$execs executions, $$cov — nothing found"; \
	  fi; \
	done; \
	if [ $$found -ne 0 ]; then echo "fuzz: problems found; inputs in $(FUZZ_OUT)/ (replay: ./$(FUZZ_BIN) FILE)"; exit 1; fi; \
	echo "fuzz: nothing found"

## fuzz-replay: every committed corpus and regression file once, under ASan.
fuzz-replay: fuzz-build
	@files=$$(find Fuzz/corpus Fuzz/regressions -type f 2>/dev/null | LC_ALL=C sort); \
	n=$$(echo "$$files" | wc -w); \
	echo "== replaying $$n files under ASan"; \
	./$(FUZZ_BIN) -rss_limit_mb=2048 -timeout=10 $$files > $(FUZZ_DIR)/replay.log 2>&1 \
	  || { tail -40 $(FUZZ_DIR)/replay.log; echo "fuzz-replay: FAILED (log $(FUZZ_DIR)/replay.log)"; exit 1; }; \
	echo "   $$n files replayed clean"

## test-asan: the decoder tests built with AddressSanitizer.
# --disable-xctest: our suites are Swift Testing; the empty XCTest pass only
# reports LeakSanitizer leaks inside the toolchain's libXCTest.
# SWIFT_BACKTRACE=enable=no: after an ASan abort the Swift backtracer can hang
# in the sanitized process; ASan's own report is the useful one.
test-asan: fuzz-replay
	@if [ "$(ASAN_SWIFT_TEST)" = "1" ]; then \
	  echo "== swift test under ASan (build path $(ASAN_BUILD))"; \
	  $(SWIFT) build --build-tests -Xswiftc -sanitize=address --build-path $(ASAN_BUILD) && \
	  SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build -Xswiftc -sanitize=address --build-path $(ASAN_BUILD) \
	    --disable-xctest --filter "ImageIO|FuzzRegression"; \
	fi

fuzz-clean:
	rm -rf $(FUZZ_DIR) $(FUZZ_OUT)
