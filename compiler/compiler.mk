# compiler (front half): graph IR, JSON/ONNX import, inference, passes; build/ovta-opt.
# The ONNX protobuf C code is generated at build time from Debian's python3-onnx onnx.proto.
ONNX_PROTO_DIR ?= $(dir $(firstword $(wildcard /usr/lib/python3/dist-packages/onnx/onnx.proto) \
  $(shell dpkg -L python3-onnx 2>/dev/null | grep '/onnx\.proto$$')))
ONNX_PB_C := $(B)/gen/onnx.pb-c.c
ONNX_PB_H := $(B)/gen/onnx.pb-c.h
GEN += $(ONNX_PB_H)
LIB_SRCS += $(ONNX_PB_C) $(filter-out compiler/ovta_opt.c,$(wildcard compiler/graph*.c compiler/json*.c compiler/onnx*.c compiler/pass*.c compiler/infer*.c compiler/eval*.c))
LDLIBS += -lprotobuf-c

$(ONNX_PB_C) $(ONNX_PB_H) &: $(ONNX_PROTO_DIR)onnx.proto | $(B)/gen
	protoc-c --c_out=$(B)/gen -I$(ONNX_PROTO_DIR) $(ONNX_PROTO_DIR)onnx.proto

# protobuf-c's generated code is not -Wextra clean
$(B)/obj/$(ONNX_PB_C:.c=.o): CFLAGS += -Wno-unused-parameter -Wno-missing-field-initializers

OVTA_OPT := $(B)/ovta-opt
TOOLS += $(OVTA_OPT)
$(OVTA_OPT): compiler/ovta_opt.c $(B)/libovta.a $(GEN)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ compiler/ovta_opt.c $(B)/libovta.a $(LDFLAGS) $(LDLIBS)

# FileCheck tests (tests/filecheck/*.json, *.test), run by tests/filecheck/run.sh through a
# wrapper that tests/run.sh runs like any test binary.
FILECHECK_RUNNER := $(B)/tests/filecheck/run-filecheck
TESTS += $(FILECHECK_RUNNER)
$(FILECHECK_RUNNER): tests/filecheck/run.sh $(OVTA_OPT)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash tests/filecheck/run.sh %s "$$@"\n' '$(B)' > $@
	chmod +x $@
