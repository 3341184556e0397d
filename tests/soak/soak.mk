# tests/soak/ and the sanitizer/valgrind runs of the whole suite.
#   make soak            one device per config runs reference, random and bad programs for
#                        SOAK_SECONDS (default 60); a 30-round version is part of `make test`
#   make test-san        the whole `make test` suite in the SAN=1 build (ASan + UBSan + LeakSanitizer);
#                        `make test` itself runs a subset of it (TEST_SAN_SUBSET) after the normal suite
#   make test-valgrind   the fsim, driver, assembler and generator tests under valgrind (leaks, errors)
#   make test-tsan       the multi-threaded tests (TSAN_TESTS) built with clang -fsanitize=thread in
#                        build-tsan/ (TSAN=1); any data race report fails
SOAK_SECONDS ?= 60
TESTS += $(B)/tests/soak/soak
.PHONY: soak test-san test-valgrind test-tsan

$(B)/tests/soak/soak: tests/soak/soak.c $(RANDPROG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RANDPROG_FLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(RANDPROG_SRCS) $(LIB) $(LDFLAGS) \
	  $(OVTA_TOOL_LDLIBS) $(LDLIBS)

soak: $(B)/tests/soak/soak
	SOAK_SECONDS=$(SOAK_SECONDS) $(B)/tests/soak/soak

test-san:
	@$(MAKE) --no-print-directory SAN=1 test

# The ASan + UBSan part of `make test` (the whole suite in SAN=1 takes ~26 min here, too long to
# add): the tests that feed hostile or random input to C code and the threaded ones, built in
# build-san/ and run after the normal suite by the same tests/run.sh (one closing line).
TEST_SAN_SUBSET :=
ifeq ($(SAN)$(FUZZ)$(TSAN),000)
TEST_SAN_SUBSET := $(addprefix build-san/tests/, $(FUZZ_TARGETS:%=fuzz/replay_%) bad/run-bad cli/test_cli \
  compiler/test_graph compiler/test_onnx_import compiler/test_quant runtime/test_rt_core runtime/test_rt_matmul \
  runtime/test_rt_threads fsim/test_fsim driver/test_driver isa/test_asm isa/test_encoding)
endif

VALGRIND_TESTS := $(B)/tests/fsim/test_fsim $(B)/tests/driver/test_driver $(B)/tests/isa/test_asm \
  $(B)/tests/isa/test_encoding $(B)/tests/gen/test_randprog $(B)/tests/soak/soak
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
test-tsan:
	@$(MAKE) --no-print-directory TSAN=1 tsan-build
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
	  bash tests/run.sh build-tsan $(TSAN_TESTS:$(B)/%=build-tsan/%)
endif
