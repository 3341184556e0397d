.config small
GEMM uop_bgn=0 uop_end=129 iter_out=1 iter_in=1
FINISH
