# jit-runtime: (filled in by its layer)
