.config small
LOAD memory_type=6 y_size=1 x_size=1
FINISH
