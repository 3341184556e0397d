# tests/bad/: the catalogue of bad inputs (cases/*, each with a CASE.expect), run through build/ovta
# by tests/bad/run.sh as one entry of TESTS.
TESTS += $(B)/tests/bad/run-bad

$(B)/tests/bad/run-bad: tests/bad/run.sh tests/bad/bad.mk $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/bad/run.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# tests/bad/test_plan_corrupt.sh: damaged plan folders through build/ovta and build/ovta-rt.
TESTS += $(B)/tests/bad/test_plan_corrupt

$(B)/tests/bad/test_plan_corrupt: tests/bad/test_plan_corrupt.sh tests/bad/bad.mk $(B)/ovta $(B)/ovta-rt
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/bad/test_plan_corrupt.sh" "%s/$(B)/ovta" "%s/$(B)/ovta-rt" "$$@"\n' "$(SRC)" "$(SRC)" "$(SRC)" > $@
	chmod +x $@
