# a 4 GiB buffer parses (the limit is 2^32 bytes) but does not fit the simulated DRAM
.config small
.buffer big 4294967296
FINISH
