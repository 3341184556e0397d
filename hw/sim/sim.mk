# hw/sim: the functional simulator fsim (hw/sim/fsim.h; the driver backend "fsim" is
# driver/backend_fsim.c; see hw/sim/README.md).
LIB_SRCS += hw/sim/fsim.c

FSIM_BENCH := $(B)/bench/fsim_bench
.PHONY: bench-fsim
## bench-fsim: simulated GEMM micro-ops per second of wall time, as JSON
bench-fsim: $(FSIM_BENCH)
	$(FSIM_BENCH)

$(FSIM_BENCH): bench/fsim_bench.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
