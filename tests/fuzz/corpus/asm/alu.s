# ALU on the small config: acc0 += acc1; acc0 >>= 1; acc0 = max(acc0, -50); store low 8 bits.
.config small
.buffer uops 4
.buffer acc 64     # two ACC elements of 8 int32
.buffer out 8
.uops uops
uop dst_idx=0 src_idx=1 wgt_idx=0
.int32 acc+0  100 -100 7 -7 1000 -1000 255 -256
.int32 acc+32 1 2 3 4 5 6 7 8
LOAD memory_type=UOP dram_base=@uops y_size=1 x_size=1 x_stride=1
LOAD memory_type=ACC dram_base=@acc y_size=1 x_size=2 x_stride=2
ALU uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 alu_opcode=ADD
ALU uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 alu_opcode=SHR use_imm=1 imm=1
ALU uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 alu_opcode=MAX use_imm=1 imm=-50 push_next=1
STORE memory_type=OUT dram_base=@out y_size=1 x_size=1 x_stride=1 pop_prev=1 push_prev=1
FINISH pop_next=1
.dump out 8
