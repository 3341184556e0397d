# tools: (filled in by its layer)
