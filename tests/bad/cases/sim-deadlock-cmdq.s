# store waits for compute's token, but compute's FINISH sits behind 5 stores in fetch order
# and the store command queue holds 4 (CMD_QUEUE_DEPTH on small)
.config small
STORE memory_type=OUT pop_prev=1
STORE memory_type=OUT
STORE memory_type=OUT
STORE memory_type=OUT
STORE memory_type=OUT
FINISH push_next=1
