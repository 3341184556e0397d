.config small
LOAD memory_type=OUT y_size=1 x_size=1
FINISH
