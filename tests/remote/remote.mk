# tests/remote/: remote runs over loopback (tests/remote/test_remote.sh): `ovta-rt serve` and
# `ovta run|profile --remote`, hostile clients (tests/remote/rawclient.py), and the cross-built
# aarch64 ovta-rt serving under qemu-user (when the cross compiler is installed).
ifeq ($(CROSS_ARCH),)
TESTS += $(B)/tests/remote/test_remote
REMOTE_QEMU_RT := $(if $(filter 000,$(SAN)$(FUZZ)$(TSAN)),$(if $(shell command -v $(CROSS_TRIPLE_aarch64)-gcc),build-aarch64/ovta-rt))
$(B)/tests/remote/test_remote: tests/remote/test_remote.sh tests/remote/remote.mk $(B)/ovta $(OVTA_RT) $(REMOTE_QEMU_RT)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/remote/test_remote.sh" "%s/$(B)" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
endif
