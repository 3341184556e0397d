.config small
LOAD memory_type=INP pop_prev=1
FINISH
