.config small
STORE memory_type=INP
FINISH
