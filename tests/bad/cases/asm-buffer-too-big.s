.config small
.buffer a 4294967297
