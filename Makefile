# ovta: top-level build.
#   make run    install what is missing, build, run the main job (see README.md)
#   make test   install what is missing, build, run the tests
# Each layer adds itself through its own fragment (isa/isa.mk, driver/driver.mk, ...).
# Outputs go to build/ (SAN=1: build-san/ with AddressSanitizer and UBSan; FUZZ=1: build-fuzz/,
# clang with libFuzzer instrumentation, used by `make fuzz`; TSAN=1: build-tsan/, clang with
# ThreadSanitizer, used by `make test-tsan`).

SRC := $(abspath .)
SAN ?= 0
FUZZ ?= 0
TSAN ?= 0
CC := gcc
ifeq ($(FUZZ),1)
B ?= build-fuzz
CC := clang
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(TSAN),1)
B ?= build-tsan
CC := clang
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else ifeq ($(SAN),1)
B ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B ?= build
SANFLAGS :=
endif

CXX := g++
OPT ?= -O2
# BASE_CPPFLAGS: what every object sees; the compiler's layers add their own include paths
# (compiler/compiler.mk), everything else sees all of CPPFLAGS.
BASE_CPPFLAGS := -I$(B)/gen -Iisa -DOVTA_SRC_DIR=\"$(SRC)\" -D_GNU_SOURCE
CPPFLAGS := $(BASE_CPPFLAGS) -Idriver -Ihw/sim -Ijit-runtime
# The hardware-side layers, lowest first: isa/ -> hw/sim/ -> driver/ -> jit-runtime/. Each one's
# objects see only its own headers and those below, so an upward include fails to build (the
# compiler's layers do the same in compiler/compiler.mk).
$(B)/obj/isa/%.o: CPPFLAGS = $(BASE_CPPFLAGS)
$(B)/obj/hw/sim/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim
$(B)/obj/driver/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim -Idriver
$(B)/obj/jit-runtime/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim -Idriver -Ijit-runtime
CFLAGS := -std=c11 $(OPT) -g -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
  -Werror=incompatible-pointer-types -Werror=int-conversion -fPIC $(SANFLAGS)
LDFLAGS := $(SANFLAGS)
LDLIBS := -lcjson -lm -lpthread

.DEFAULT_GOAL := all
.PHONY: all deps run test clean help

help:
	@echo "make run    install dependencies, build, run the main job"
	@echo "make test   install dependencies, build, run every test"
	@echo "make all    build only"
	@echo "make clean  remove build outputs"

deps:
	@bash tools/install-deps.sh

# The one library every layer goes into (defined before the fragments, which use it).
LIB := $(B)/libovta.a

# Fragments append to these.
LIB_SRCS :=
TOOLS :=
TESTS :=
GEN :=

include isa/isa.mk
include driver/driver.mk
include hw/sim/sim.mk
include hw/sim/tsim.mk
include boards/boards.mk
include hw/rtl/rtl.mk
include jit-runtime/runtime.mk
include compiler/compiler.mk
include tools/tools.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk
include tests/gen/gen.mk
include tests/bad/bad.mk
include tests/soak/soak.mk
include tests/readme/readme.mk

LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)

$(B)/obj/%.o: %.c $(GEN) | $(B)/gen
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/gen:
	@mkdir -p $@

all: $(LIB) $(TOOLS) $(TESTS)

test: deps
	@$(MAKE) --no-print-directory all
	$(if $(TEST_SAN_BUILD),@$(MAKE) --no-print-directory SAN=1 $(TEST_SAN_BUILD))
	@bash tests/run.sh $(B) $(TESTS) $(TEST_SAN_SUBSET)

run: deps
	@$(MAKE) --no-print-directory all
	@bash tools/run-main.sh $(B)

clean:
	rm -rf build build-san build-fuzz build-tsan

-include $(shell find $(B)/obj $(B)/tests -name '*.d' 2>/dev/null)
