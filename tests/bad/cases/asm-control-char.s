.config small
FINISH
