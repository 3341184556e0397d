.config small
.buffer out 8
STORE memory_type=OUT dram_base=@out y_size=2 x_size=1 x_stride=1
FINISH
