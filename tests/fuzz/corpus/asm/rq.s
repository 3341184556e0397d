# RQ on the small config: acc0 = clamp((acc0 + 2^1) >> 2, 0, 127) (imm (127 << 8) | (1 << 6) | (1 << 5) | 2); store low 8 bits.
.config small
.buffer uops 4
.buffer acc 32     # one ACC element of 8 int32
.buffer out 8
.uops uops
uop dst_idx=0 src_idx=0 wgt_idx=0
.int32 acc+0  100 -100 7 -7 1000 -1000 255 -256
LOAD memory_type=UOP dram_base=@uops y_size=1 x_size=1 x_stride=1
LOAD memory_type=ACC dram_base=@acc y_size=1 x_size=1 x_stride=1
ALU uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 alu_opcode=RQ use_imm=1 imm=32610 push_next=1
STORE memory_type=OUT dram_base=@out y_size=1 x_size=1 x_stride=1 pop_prev=1 push_prev=1
FINISH pop_next=1
.dump out 8
