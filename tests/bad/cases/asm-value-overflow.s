.config small
LOAD memory_type=INP y_size=99999999999999999999999 x_size=1
