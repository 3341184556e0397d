# hw/rtl: (filled in by its layer)
