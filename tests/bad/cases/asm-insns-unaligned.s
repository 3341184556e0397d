.config small
.buffer a 64
.insns a+8
FINISH
