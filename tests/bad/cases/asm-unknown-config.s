.config no_such_config
FINISH
