.config small
.buffer inp 64
LOAD memory_type=INP dram_base=@inp+7 y_size=1 x_size=2 x_stride=2
FINISH
