.config small
.buffer w 64
LOAD memory_type=WGT dram_base=@w y_size=1 x_size=1 x_stride=1 x_pad_0=1
FINISH
