# tests/bad/: the catalogue of bad inputs (cases/*, each with a CASE.expect), run through build/ovta
# by tests/bad/run.sh as one entry of TESTS.
TESTS += $(B)/tests/bad/run-bad

$(B)/tests/bad/run-bad: tests/bad/run.sh tests/bad/bad.mk $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/bad/run.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
