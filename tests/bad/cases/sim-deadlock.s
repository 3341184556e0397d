# compute waits for a token from load that never comes
.config small
GEMM pop_prev=1 uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
FINISH
