.config small
.buffer a 4
.int8 a+2 1 2 3
