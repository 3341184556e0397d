.config small
LOAD memory_type=INP dram_base=5 y_size=1 x_size=1 x_stride=1
FINISH
