# 65535 x 65535 elements: the SRAM range check must not overflow
.config small
.buffer inp 64
LOAD memory_type=INP dram_base=@inp y_size=65535 x_size=65535 x_stride=65535 y_pad_0=15 y_pad_1=15 x_pad_0=15 x_pad_1=15
FINISH
