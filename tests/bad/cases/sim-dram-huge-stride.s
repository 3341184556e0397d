# row 1 is 65535 INP elements past row 0: far outside the 64-byte buffer
.config small
.buffer inp 64
LOAD memory_type=INP dram_base=@inp y_size=2 x_size=1 x_stride=65535
FINISH
