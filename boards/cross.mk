# boards/cross.mk: ovta-rt for the boards' ARM cores, cross-compiled here, and its run under
# qemu-user against the virtual board (boards/README.md, "Cross-building ovta-rt"). Included by
# the top Makefile.
#
# `make cross ARCH=aarch64|armv7` runs make again with CROSS_ARCH=ARCH (Makefile): build-ARCH/
# with Debian's aarch64-linux-gnu-gcc / arm-linux-gnueabihf-gcc; the isa generator is built
# for this machine (build-ARCH/host/isagen) and writes the same headers; libovta-rt.a's sources
# and tools/ovta-rt/main.c are compiled for the target, linked against Debian's multiarch
# libcjson (libcjson-dev:arm64 / :armhf, tools/install-deps.sh). Backends: zynq and fsim
# (driver/driver.mk). build-ARCH/bin/ovta-rt is the stripped binary to copy to the board.

CROSS_ARCHES := aarch64 armv7
CROSS_RTS := $(CROSS_ARCHES:%=build-%/ovta-rt)
.PHONY: cross test-board-emu test-board-emu-nodes

## cross ARCH=aarch64|armv7: build-ARCH/ovta-rt with Debian's cross gcc; build-ARCH/bin/ovta-rt stripped (boards/README.md)
cross:
	@test -n "$(filter $(ARCH),$(CROSS_ARCHES))" -a "$(words $(ARCH))" = 1 || \
	  { echo "make cross ARCH=NAME: NAME is one of $(CROSS_ARCHES) (ARCH='$(ARCH)')"; exit 2; }
	@$(MAKE) --no-print-directory build-$(ARCH)/ovta-rt
	@echo "build-$(ARCH)/bin/ovta-rt: $$(stat -c %s build-$(ARCH)/bin/ovta-rt) bytes stripped ($(CROSS_TRIPLE_$(ARCH)))"

ifeq ($(CROSS_ARCH),)
# From the host build: always ask the cross make, which knows whether anything changed.
.PHONY: $(CROSS_RTS)
$(CROSS_RTS): build-%/ovta-rt:
	@$(MAKE) --no-print-directory CROSS_ARCH=$* B=build-$* cross-rt
else
.PHONY: cross-rt
cross-rt: $(B)/ovta-rt $(B)/bin/ovta-rt
	@:
$(B)/bin/ovta-rt: $(B)/ovta-rt
	@mkdir -p $(dir $@)
	$(CROSS_TRIPLE)-strip -o $@ $<
endif

# tests/boards/test_board_emu.sh: the Fashion-MNIST model compiled here for pynq-z2 (armv7) and
# ultra96-v2 (aarch64), run by the cross-built ovta-rt under qemu-user on the zynq backend
# against build/ovta-vboard, on fsim, and as a cpu-only plan; outputs against the host's `ovta
# run`. It needs both boards' Verilator models (the virtual boards). In the normal build only: the
# ARM side is not sanitized, and the SAN=1 build would need its own two Verilator models.
BOARD_EMU_CONFIGS := pynq-z2 ultra96-v2
# Without a cross compiler (tools/install-deps.sh not run) the test skips, saying so.
BOARD_EMU_RTS := $(foreach a,$(CROSS_ARCHES),$(if $(shell command -v $(CROSS_TRIPLE_$(a))-gcc),build-$(a)/ovta-rt))
BOARD_EMU_DEPS := $(B)/ovta $(VBOARD_TOOL) $(BOARD_EMU_RTS) $(BOARD_EMU_CONFIGS:%=$(B)/tsim/%/libovta_tsim.so)
ifeq ($(SAN)$(FUZZ)$(TSAN)$(CROSS_ARCH),000)
TESTS += $(B)/tests/boards/test_board_emu
endif
$(B)/tests/boards/test_board_emu: tests/boards/test_board_emu.sh $(BOARD_EMU_DEPS)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/boards/test_board_emu.sh" "%s/$(B)" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

## test-board-emu: the cross-built ovta-rt (both ARCHes) under qemu-user on the virtual boards, fsim and cpu, against the host
test-board-emu: $(B)/tests/boards/test_board_emu
	@bash tests/boards/test_board_emu.sh $(SRC)/$(B) --verbose

# tests/boards/cross_nodes.sh: the ONNX node tests' CPU code for ARCH under qemu-user against the
# host's `ovta run` (minutes; not in make test). NODES=SUBSTRING picks some.
## test-board-emu-nodes ARCH=aarch64|armv7 [NODES=FILTER]: every ONNX node test as ARM code under qemu-user vs the host
test-board-emu-nodes: $(B)/ovta
	@test -n "$(filter $(ARCH),$(CROSS_ARCHES))" || { echo "make test-board-emu-nodes ARCH=NAME: NAME is one of $(CROSS_ARCHES)"; exit 2; }
	@$(MAKE) --no-print-directory build-$(ARCH)/ovta-rt
	@bash tests/boards/cross_nodes.sh $(B) $(ARCH) $(NODES)
