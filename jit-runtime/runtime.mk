# jit-runtime/: the JIT runtime (command queues, uop kernel cache, dependency tokens, synchronize).
LIB_SRCS += jit-runtime/runtime.c jit-runtime/kernels.c

# bench/matmul_bench: blocked matmul through the runtime, 1 and 2 virtual threads, JSON report.
MATMUL_BENCH := $(B)/bench/matmul_bench
TOOLS += $(MATMUL_BENCH)
.PHONY: bench-matmul

$(MATMUL_BENCH): bench/matmul_bench.c tests/runtime/rt_matmul.h $(B)/libovta.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/runtime $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# OVTA_BENCH_BACKENDS (default: fsim) and OVTA_BENCH_CONFIGS (default: default small batch2)
## bench-matmul: blocked matmul through the runtime, 1 and 2 virtual threads, as JSON
bench-matmul: $(MATMUL_BENCH)
	$(MATMUL_BENCH)
