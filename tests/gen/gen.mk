# tests/gen/: the random valid program generator (randprog.c), its tests and tools.
#   build/ovta-randprog           print a seed's program as assembler text, or run the
#                                 differential test over many seeds (--diff)
# and the target test-diff-long below.
# The runner places programs with tools/ovta/load.c (ovta_program_load), compiled in here.
RANDPROG_SRCS := tests/gen/randprog.c tools/ovta/load.c
RANDPROG_FLAGS := -Itests/gen -Itools/ovta -DOVTA_HAVE_DRIVER
RANDPROG_DEPS := $(RANDPROG_SRCS) tests/gen/randprog.h tools/ovta/ovta_tool.h $(LIB) $(GEN)
DIFF_LONG_SEEDS ?= 3000

TOOLS += $(B)/ovta-randprog
$(B)/ovta-randprog: tests/gen/ovta_randprog.c $(RANDPROG_DEPS)
	$(CC) $(CPPFLAGS) $(RANDPROG_FLAGS) $(CFLAGS) -o $@ $< $(RANDPROG_SRCS) $(LIB) $(LDFLAGS) $(OVTA_TOOL_LDLIBS) $(LDLIBS)

# tests/gen/test_*.c are in TESTS through tests/tests.mk; they need the generator linked in.
$(B)/tests/gen/%: tests/gen/%.c $(RANDPROG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(RANDPROG_FLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(RANDPROG_SRCS) $(LIB) $(LDFLAGS) \
	  $(OVTA_TOOL_LDLIBS) $(TEST_LDLIBS) $(LDLIBS)

.PHONY: test-diff-long
# test-diff-long runs tests/gen/diff_long.sh: DIFF_LONG_SEEDS seeds per config (from
# DIFF_LONG_FIRST), DIFF_LONG_JOBS parallel niced jobs over chunks of DIFF_LONG_CHUNK seeds,
# progress after each chunk, a summary per config; every result line is appended to
# DIFF_LONG_LOG. OVTA_DIFF_BACKENDS: the backends compared here (default "fsim,fsim-interleaved");
# hw/sim/tsim.mk adds test-diff-tsim-long (fsim against tsim) to it.
DIFF_LONG_FIRST ?= 1
DIFF_LONG_JOBS ?= 2
DIFF_LONG_CHUNK ?= 500
DIFF_LONG_LOG ?= $(B)/diff-long.jsonl
DIFF_LONG_SEED_RANGE = $(DIFF_LONG_FIRST):$$(($(DIFF_LONG_FIRST) + $(DIFF_LONG_SEEDS) - 1))
DIFF_LONG = bash tests/gen/diff_long.sh --randprog $(B)/ovta-randprog --seeds $(DIFF_LONG_SEED_RANGE) \
  --jobs $(DIFF_LONG_JOBS) --chunk $(DIFF_LONG_CHUNK) --fail-dir $(B)/randprog-fail --log $(DIFF_LONG_LOG)
## test-diff-long [DIFF_LONG_SEEDS=3000] [DIFF_LONG_FIRST=1] [DIFF_LONG_JOBS=2]: random programs per config, differential, in parallel
test-diff-long: $(B)/ovta-randprog
	@$(DIFF_LONG) --configs "small default batch2 wide wide256" --shapes plain
