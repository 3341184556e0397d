.config small
FROB pop_prev=1
