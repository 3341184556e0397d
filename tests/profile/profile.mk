# tests/profile/profile.mk (included from tools/tools.mk): `ovta profile` (tools/ovta/cmd_profile.c,
# gnuplot scripts in tools/plot/), `ovta bench` (tools/ovta/cmd_bench.c) and their test
# tests/profile/test_profile.sh (in `make test`).
OVTA_TOOL_SRCS += tools/ovta/cmd_profile.c tools/ovta/cmd_bench.c
# `ovta bench` runs these programs (defined by the fragments included before this one): built by `make all`.
TOOLS += $(FSIM_BENCH) $(TSIM_BENCH) $(MATMUL_BENCH) $(LAYERS_BENCH)

TESTS += $(B)/tests/profile/test_profile

$(B)/tests/profile/test_profile: tests/profile/test_profile.sh $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/profile/test_profile.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
