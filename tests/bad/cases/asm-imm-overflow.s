.config small
ALU alu_opcode=ADD use_imm=1 imm=32768
