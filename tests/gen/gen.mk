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
# OVTA_DIFF_BACKENDS: the backends compared (default "fsim,fsim-interleaved"; e.g. "fsim,tsim");
# hw/sim/tsim.mk adds test-diff-tsim-long to it.
## test-diff-long [DIFF_LONG_SEEDS=3000]: thousands of random programs per config, differential
test-diff-long: $(B)/ovta-randprog
	@for c in small default batch2 wide wide256; do \
	  $(B)/ovta-randprog --diff --config $$c --seeds 1:$(DIFF_LONG_SEEDS) --fail-dir $(B)/randprog-fail || exit 1; \
	done
