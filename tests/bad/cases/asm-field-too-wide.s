.config small
LOAD memory_type=INP y_size=1 x_size=65536
