.config small
.buffer a 4
.int8 a+18446744073709551615 1
