.config small
ALU alu_opcode=8 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
FINISH
