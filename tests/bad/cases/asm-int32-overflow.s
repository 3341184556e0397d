.config small
.buffer a 16
.int32 a 4294967296
