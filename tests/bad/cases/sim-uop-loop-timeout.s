# 16383 x 16383 x 8192 GEMM micro-ops on the default config (all-zero micro-ops are in range):
# about 2.2e12 micro-ops, must stop at the --timeout naming the instruction
.config default
GEMM uop_bgn=0 uop_end=8192 iter_out=16383 iter_in=16383
FINISH
