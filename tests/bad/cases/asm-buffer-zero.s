.config small
.buffer a 0
