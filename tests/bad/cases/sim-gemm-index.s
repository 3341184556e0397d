# dst index 1 + 127 * 1 = 128 is past the 128 ACC elements of small
.config small
GEMM reset=1 uop_bgn=0 uop_end=1 iter_out=128 iter_in=1 dst_factor_out=1
GEMM reset=1 uop_bgn=0 uop_end=1 iter_out=2 iter_in=2 dst_factor_out=127 dst_factor_in=1
FINISH
