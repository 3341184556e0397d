# y[o] = sum_i x[i] * w[o][i] on the small config (1x8x8); hand result: 36*(o+1) as int8
.config small
.buffer uops 4
.buffer inp 8
.buffer wgt 64
.buffer out 8
.uops uops
uop dst_idx=0 src_idx=0 wgt_idx=0
.int8 inp 1 2 3 4 5 6 7 8
.int8 wgt+0  1 1 1 1 1 1 1 1  2 2 2 2 2 2 2 2
.int8 wgt+16 3 3 3 3 3 3 3 3  4 4 4 4 4 4 4 4
.int8 wgt+32 5 5 5 5 5 5 5 5  6 6 6 6 6 6 6 6
.int8 wgt+48 7 7 7 7 7 7 7 7  8 8 8 8 8 8 8 8
LOAD memory_type=UOP dram_base=@uops y_size=1 x_size=1 x_stride=1
LOAD memory_type=INP dram_base=@inp y_size=1 x_size=1 x_stride=1
LOAD memory_type=WGT dram_base=@wgt y_size=1 x_size=1 x_stride=1 push_next=1
GEMM reset=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
GEMM pop_prev=1 push_next=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
STORE memory_type=OUT dram_base=@out y_size=1 x_size=1 x_stride=1 pop_prev=1 push_prev=1
FINISH pop_next=1
.dump out 8 int8
