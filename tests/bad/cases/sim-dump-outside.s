.config small
.buffer a 8
.dump a+4 8
FINISH
