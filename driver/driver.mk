# driver: (filled in by its layer)
