# boards/boards.mk: FPGA boards (boards/README.md). Included by the top Makefile. Sets the
# board's config, family and part limits for `make synth BOARD=NAME` (hw/rtl/rtl.mk); the
# board targets below.
#
# The XRT backend (driver/backend_xrt.c) is compiled only when Debian's libxrt-dev headers are
# installed; without them it is left out of libovta.a and of the backend table.

XRT_HEADER := $(wildcard /usr/include/xrt/xrt/xrt_device.h)
ifeq ($(XRT_HEADER),)
LIB_SRCS := $(filter-out driver/backend_xrt.c,$(LIB_SRCS))
$(B)/obj/driver/driver.o: CPPFLAGS += -UOVTA_BACKEND_XRT
else
$(B)/obj/driver/backend_xrt.o: CPPFLAGS += -I/usr/include/xrt
endif
# the backend list changes when XRT comes or goes
$(B)/obj/driver/driver.o: boards/boards.mk $(XRT_HEADER)

# The virtual-board test needs every config's Verilator model (hw/sim/tsim.mk builds them).
$(B)/tests/boards/test_vboard: | $(TSIM_TEST_MODELS)

# Board configs (boards/NAME/config.json) get their SystemVerilog package like isa/configs do,
# so hw/rtl/rtl.mk's flattened synthesis source and hw/sim/tsim.mk's model exist for boards too.
$(B)/gen/%/ovta_pkg.sv: $(ISAGEN) isa/encoding.json boards/%/config.json
	@mkdir -p $(dir $@)
	$(ISAGEN) sv-package isa/encoding.json boards/$*/config.json $@

BOARDS := $(patsubst boards/%/board.json,%,$(wildcard boards/*/board.json))
.PHONY: synth-board synth-boards bitstream vboard

# make synth BOARD=NAME: hw/rtl/rtl.mk's Yosys flow with the board's config, its family
# (board.json "yosys_family") and its part's limits ("capacity"): set here, before rtl.mk.
board_field = $(shell sed -n 's/.*"$(2)": *"\{0,1\}\([^",}]*\)"\{0,1\}.*/\1/p' boards/$(1)/board.json | head -1)
board_cap = $(shell sed -n 's/.*"capacity".*"$(2)": *\([0-9]*\).*/\1/p' boards/$(1)/board.json)
ifneq ($(BOARD),)
ifeq ($(wildcard boards/$(BOARD)/board.json),)
$(error BOARD=$(BOARD): there is no boards/$(BOARD)/board.json (boards: $(BOARDS)))
endif
SYNTH_CONFIG := $(B)/boards/$(BOARD).json
SYNTH_FAMILY := $(call board_field,$(BOARD),yosys_family)
SYNTH_LIMITS := $(foreach k,lut ff dsp bram36,$(call board_cap,$(BOARD),$(k)))
BOARD_SYNTH_JSON := $(B)/synth/$(BOARD)$(if $(filter xc7,$(SYNTH_FAMILY)),,-$(SYNTH_FAMILY)).json
endif
# the board's config under the board's name (rtl.mk names its outputs after the file)
$(B)/boards/%.json: boards/%/config.json
	@mkdir -p $(dir $@)
	cp $< $@

## synth-board BOARD=NAME: synth with the board's config and part, then a table against the part; fails when it does not fit
synth-board:
	@test -n "$(BOARD)" || { echo "make synth-board BOARD=NAME (boards: $(BOARDS))"; exit 1; }
	@$(MAKE) --no-print-directory synth BOARD=$(BOARD)
	@bash boards/synth.sh $(BOARD) $(BOARD_SYNTH_JSON)
## synth-boards: synth-board for every board (boards/*/board.json), one after the other (Yosys is single-threaded)
synth-boards:
	@fail=0; for b in $(BOARDS); do $(MAKE) --no-print-directory synth-board BOARD=$$b || fail=1; done; exit $$fail

# Says so when the tools are missing.
## bitstream BOARD=NAME: the Vivado (Zynq) or Vitis v++ (Alveo) build (boards/NAME/build.sh)
bitstream:
	@test -n "$(BOARD)" || { echo "make bitstream BOARD=NAME (boards: $(BOARDS))"; exit 1; }
	@bash boards/$(BOARD)/build.sh

# build/ovta-vboard: the virtual board as a standalone server (boards/vboard_main.c)
VBOARD_TOOL := $(B)/ovta-vboard
TOOLS += $(VBOARD_TOOL)
## vboard: build/ovta-vboard, the virtual board as a standalone server
vboard: $(VBOARD_TOOL)
$(VBOARD_TOOL): boards/vboard_main.c $(LIB) $(GEN)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# tests/boards/test_fsim_vboard runs the fsim directed tests on the virtual board
$(B)/tests/boards/test_fsim_vboard: | $(B)/tests/fsim/test_fsim $(TSIM_TEST_MODELS)
