# GEMM waits for a token from the load module that never comes
GEMM pop_prev=1 uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
FINISH
