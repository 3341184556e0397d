# a typo in a field name
.config small
LOAD x_sise=1
