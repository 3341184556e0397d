# driver/: the driver API (ovta_driver.h), the backend table, simulated DRAM, and the
# backends (fsim, tsim, boards). Each driver/backend_NAME.c found is compiled in, and driver/driver.c
# gets -DOVTA_BACKEND_NAME so its table lists it (see driver/driver_impl.h).
DRIVER_BACKEND_SRCS := $(wildcard driver/backend_*.c)
# A cross build for a board (Makefile CROSS_ARCH) has the board's backend and fsim only: tsim
# and vboard load a Verilator model built for this machine, xrt is for Alveo cards in x86 hosts.
ifneq ($(CROSS_ARCH),)
DRIVER_BACKEND_SRCS := $(filter driver/backend_fsim.c driver/backend_zynq.c,$(DRIVER_BACKEND_SRCS))
endif
DRIVER_BACKEND_DEFS := $(foreach f,$(DRIVER_BACKEND_SRCS),-DOVTA_BACKEND_$(shell echo $(basename $(notdir $(f))) | sed 's/^backend_//' | tr a-z A-Z))
LIB_SRCS += driver/driver.c driver/simdram.c $(DRIVER_BACKEND_SRCS)

# driver.c's table depends on which backend files exist: rebuild it when one appears.
$(B)/obj/driver/driver.o: CPPFLAGS += $(DRIVER_BACKEND_DEFS)
$(B)/obj/driver/driver.o: driver/driver.mk $(DRIVER_BACKEND_SRCS)
