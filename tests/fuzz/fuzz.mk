# tests/fuzz/: libFuzzer targets (clang). `make fuzz` builds the library with FUZZ=1 into
# build-fuzz/ and runs each target for FUZZ_SECONDS on its seed corpus (tests/fuzz/corpus/NAME/);
# new inputs go to build-fuzz/corpus/NAME/, crashes to build-fuzz/crashes/NAME/. A crash found
# becomes a regression test: copy it into tests/fuzz/regress/NAME/ (replayed by `make test`).
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 10000000
FUZZ_CAMPAIGN_SECONDS ?= 86400
.PHONY: fuzz fuzz-build fuzz-campaign

ifeq ($(FUZZ),1)
$(B)/fuzz/%: tests/fuzz/fuzz_%.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDFLAGS) -fsanitize=fuzzer $(FUZZ_LDLIBS) $(LDLIBS)
fuzz-build: $(FUZZ_TARGETS:%=$(B)/fuzz/%)
else
## fuzz [FUZZ_SECONDS=60]: every libFuzzer target on its corpus (clang, build-fuzz/; tests/fuzz/README.md)
fuzz:
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
## fuzz-campaign [FUZZ_RUNS=10000000] [TARGETS="a b"]: each target until FUZZ_RUNS executions (long: hours for onnx, 1-2 for fsim)
fuzz-campaign:
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) nice bash tests/fuzz/run.sh build-fuzz $(FUZZ_CAMPAIGN_SECONDS) $(or $(TARGETS),$(FUZZ_TARGETS))
endif

# Replay of the seed corpus and the saved crashes through the normal build, in `make test`.
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)
TESTS += $(FUZZ_REPLAY)
$(B)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFUZZ_NAME=\"$*\" -o $@ tests/fuzz/replay.c $< $(LIB) $(LDFLAGS) $(FUZZ_LDLIBS) $(TEST_LDLIBS) $(LDLIBS)

$(B)/tests/fuzz/replay_fsim: tests/fuzz/fuzz_fsim.h
ifeq ($(FUZZ),1)
$(B)/fuzz/fsim: tests/fuzz/fuzz_fsim.h tests/fuzz/coverage-ignore.txt
$(B)/obj/hw/sim/fsim.o: tests/fuzz/coverage-ignore.txt
endif

# The fsim target reuses its devices across inputs: each input's result, in several orders of
# the corpus, equals its result on a fresh device (tests/fuzz/test_fsim_order.c).
# (tests/tests.mk lists it with the other tests/*/test_*.c; this rule links the target in)
$(B)/tests/fuzz/test_fsim_order: tests/fuzz/test_fsim_order.c tests/fuzz/fuzz_fsim.c tests/fuzz/fuzz_fsim.h $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ tests/fuzz/test_fsim_order.c tests/fuzz/fuzz_fsim.c $(LIB) $(LDFLAGS) $(FUZZ_LDLIBS) $(TEST_LDLIBS) $(LDLIBS)

# The compiler's differential fuzzer, a short fixed run (tests/fuzz/test_fuzz_compiler.sh); long
# runs: `make fuzz-compiler [SECONDS=300]` (tools/tools.mk).
TESTS += $(B)/tests/fuzz/test_fuzz_compiler
$(B)/tests/fuzz/test_fuzz_compiler: tests/fuzz/test_fuzz_compiler.sh $(OVTA_RANDGRAPH) $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/fuzz/test_fuzz_compiler.sh" "%s/$(OVTA_RANDGRAPH)" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# tests/fuzz/run.sh's campaign record (executions summed over runs, killed runs recovered).
TESTS += $(B)/tests/fuzz/test_campaign
$(B)/tests/fuzz/test_campaign: tests/fuzz/test_campaign.sh tests/fuzz/run.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/fuzz/test_campaign.sh" "$$@"\n' "$(SRC)" > $@
	chmod +x $@
