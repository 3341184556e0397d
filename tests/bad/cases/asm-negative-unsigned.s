.config small
GEMM iter_out=-1
