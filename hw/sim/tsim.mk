# hw/sim: (filled in by its layer)
