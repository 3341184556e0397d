.config small
.config small
