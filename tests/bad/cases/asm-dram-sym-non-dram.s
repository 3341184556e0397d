.config small
.buffer a 64
GEMM uop_bgn=@a
