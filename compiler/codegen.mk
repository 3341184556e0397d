# compiler: (filled in by its layer)
