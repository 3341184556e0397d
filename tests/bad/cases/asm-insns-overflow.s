.config small
.buffer a 16
.insns a
FINISH
FINISH
