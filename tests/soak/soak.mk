# tests/soak/ and the sanitizer/valgrind runs of the whole suite (targets below). A 30-round
# version of the soak is part of `make test`; `make test` itself runs the SAN=1 suite after the
# normal one (TEST_SAN below).
SOAK_SECONDS ?= 60
TESTS += $(B)/tests/soak/soak
.PHONY: soak test-soak-long test-san test-valgrind test-tsan print-tests

$(B)/tests/soak/soak: tests/soak/soak.c $(RANDPROG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RANDPROG_FLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(RANDPROG_SRCS) $(LIB) $(LDFLAGS) \
	  $(OVTA_TOOL_LDLIBS) $(LDLIBS)

## soak [SOAK_SECONDS=60]: one device per config runs reference, random and bad programs
soak: $(B)/tests/soak/soak
	SOAK_SECONDS=$(SOAK_SECONDS) $(B)/tests/soak/soak

# tests/soak/test_model_soak.c (a test_*.c of TESTS, tests/tests.mk): the Fashion-MNIST int8 model
# run back to back on fsim and tsim, outputs and memory checked; 100 and 5 runs in `make test`.
SOAK_LONG_FSIM ?= 1000
SOAK_LONG_TSIM ?= 50
## test-soak-long [SOAK_LONG_FSIM=1000] [SOAK_LONG_TSIM=50]: the model soak at length, with its figures
test-soak-long: $(B)/tests/soak/test_model_soak
	SOAK_FSIM_RUNS=$(SOAK_LONG_FSIM) SOAK_TSIM_RUNS=$(SOAK_LONG_TSIM) $(B)/tests/soak/test_model_soak

## test-san: the whole `make test` suite in the SAN=1 build only (ASan + UBSan + LeakSanitizer)
test-san:
	@$(MAKE) --no-print-directory SAN=1 test

# The ASan + UBSan part of `make test`: after the normal suite, `make test` builds the SAN=1 tree
# (build-san/) and runs its tests too, in the same tests/run.sh call (one closing line over both).
# Measured on the shared 2-core machine: SAN build from scratch 3m21s, SAN suite 4m13s; with the
# normal build and suite a fresh clone's `make test` stays well under 30 min.
#   TEST_SAN=full (default)  every test of the suite, also in build-san/
#   TEST_SAN=subset          only TEST_SAN_SUBSET_LIST: the tests feeding hostile or random input
#                            to C code and the threaded ones (~5 min to build, ~1.5 min to run)
#   TEST_SAN=none            the normal suite only
TEST_SAN ?= full
TEST_SAN_SUBSET_LIST = $(addprefix build-san/tests/, $(FUZZ_TARGETS:%=fuzz/replay_%) fuzz/test_fsim_order bad/run-bad cli/test_cli \
  compiler/test_graph compiler/test_onnx_import compiler/test_quant runtime/test_rt_core runtime/test_rt_matmul \
  runtime/test_rt_threads fsim/test_fsim driver/test_driver isa/test_asm isa/test_encoding)
TEST_SAN_SUBSET =
TEST_SAN_BUILD =
ifeq ($(SAN)$(FUZZ)$(TSAN),000)
ifeq ($(TEST_SAN),full)
# the SAN build's own list (a fragment may leave itself out of SAN=1), asked from it when the test
# recipe runs (through a copy of $(MAKE), so `make -n test` still only prints)
# (asked once, then kept). With AREA (Makefile): the library, the tools and the area's tests only.
TEST_SAN_MAKE := $(MAKE)
TEST_SAN_SUBSET = $(eval TEST_SAN_SUBSET := $(shell MAKEFLAGS= $(TEST_SAN_MAKE) -s --no-print-directory SAN=1 \
  print-tests))$(TEST_SAN_SUBSET)
TEST_SAN_BUILD = $(if $(AREA),$(if $(call in_area,build-san,$(TEST_SAN_SUBSET)),$(patsubst $(B)/%,build-san/%,\
  $(LIB) $(TOOLS)) $(call in_area,build-san,$(TEST_SAN_SUBSET))),all)
else ifeq ($(TEST_SAN),subset)
TEST_SAN_SUBSET = $(TEST_SAN_SUBSET_LIST)
TEST_SAN_BUILD = $(call in_area,build-san,$(TEST_SAN_SUBSET_LIST))
endif
endif

VALGRIND_TESTS := $(B)/tests/fsim/test_fsim $(B)/tests/driver/test_driver $(B)/tests/isa/test_asm \
  $(B)/tests/isa/test_encoding $(B)/tests/gen/test_randprog $(B)/tests/soak/soak
## test-valgrind: the fsim, driver, assembler and generator tests under valgrind (leaks, errors)
test-valgrind: $(VALGRIND_TESTS)
	@fail=0; for t in $(VALGRIND_TESTS); do \
	  echo "=== valgrind $$t"; \
	  RANDPROG_SEEDS=15 SOAK_ITERS=6 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
	    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 $$t >/tmp/ovta-vg.$$$$ 2>&1; rc=$$?; \
	  tail -3 /tmp/ovta-vg.$$$$; grep -E '^==[0-9]+==' /tmp/ovta-vg.$$$$ | head -20; \
	  if [ $$rc -ne 0 ]; then echo "valgrind: $$t exit $$rc"; fail=1; fi; rm -f /tmp/ovta-vg.$$$$; \
	done; exit $$fail

# Threads: each test runs several threads with their own device and command queue at once.
TSAN_TESTS := $(B)/tests/runtime/test_rt_threads
ifeq ($(TSAN),1)
tsan-build: $(TSAN_TESTS)
.PHONY: tsan-build
else
## test-tsan: the multi-threaded tests (TSAN_TESTS) with clang ThreadSanitizer (build-tsan/); a race fails
test-tsan:
	@$(MAKE) --no-print-directory TSAN=1 tsan-build
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
	  bash tests/run.sh build-tsan $(TSAN_TESTS:$(B)/%=build-tsan/%)
endif

# The test binaries of this build (used by `make test` to run the SAN build's suite).
print-tests:
	@echo $(TESTS)
