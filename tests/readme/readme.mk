# tests/readme/: the README's walkthrough, run command by command. It uses build/ (the paths a user
# types), so it belongs to the normal build only, not to SAN=1/FUZZ=1.
ifeq ($(B),build)
TESTS += $(B)/tests/readme/test_readme
endif
$(B)/tests/readme/test_readme: tests/readme/test_readme.sh
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec bash %s/tests/readme/test_readme.sh "$$@"\n' "$(SRC)" > $@ && chmod +x $@
