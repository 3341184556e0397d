.config default
.buffer inp 1048576
LOAD memory_type=INP sram_base=2047 dram_base=@inp y_size=1 x_size=2 x_stride=2
FINISH
