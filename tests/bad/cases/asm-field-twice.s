.config small
LOAD x_size=1 x_size=2
