.config small
.buffer inp 64
LOAD memory_type=INP sram_base=0 dram_base=@inp y_size=1 x_size=1 x_stride=1 y_pad_0=15 y_pad_1=15 x_pad_0=15 x_pad_1=15
FINISH
