# the same for an ALU loop nest
.config default
ALU uop_bgn=0 uop_end=8192 iter_out=16383 iter_in=16383 alu_opcode=ADD use_imm=1 imm=1
FINISH
