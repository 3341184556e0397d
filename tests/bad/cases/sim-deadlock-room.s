# load pushes 5 tokens into L2C (DEP_QUEUE_DEPTH 4 on small) that nobody pops
.config small
LOAD memory_type=INP push_next=1
LOAD memory_type=INP push_next=1
LOAD memory_type=INP push_next=1
LOAD memory_type=INP push_next=1
LOAD memory_type=INP push_next=1
FINISH
