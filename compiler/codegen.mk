# compiler/ (codegen part): loop IR, LLVM-C backend, CPU lowering, graph executor, .npy files.
# See compiler/README-codegen.md.
LLVM_CONFIG ?= llvm-config-15
LLVM_INC := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null || echo /usr/lib/llvm-15/include)
LLVM_LIBDIR := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null || echo /usr/lib/llvm-15/lib)
CODEGEN_SRCS := compiler/loopir.c compiler/codegen.c $(wildcard compiler/lower_cpu*.c compiler/exec*.c compiler/npy*.c)
LIB_SRCS += $(CODEGEN_SRCS)
# Only the backend sees the LLVM-C headers.
$(B)/obj/compiler/codegen.o: CPPFLAGS += -I$(LLVM_INC)
# Everything that links libovta.a may pull in the backend.
LDLIBS += -L$(LLVM_LIBDIR) -lLLVM-15
FILECHECK ?= /usr/lib/llvm-15/bin/FileCheck

# ONNX conformance runner (tests/codegen/conform_onnx.c): a plain program printing cmocka-style lines.
CONFORM_ONNX := $(B)/tests/codegen/conform_onnx
TESTS += $(CONFORM_ONNX)
$(CONFORM_ONNX): tests/codegen/conform_onnx.c $(B)/libovta.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ $< $(B)/libovta.a $(LDFLAGS) $(LDLIBS)

# FileCheck tests of the loop IR dump (tests/codegen/filecheck/*.json, RUN lines use $OVTA),
# run by the shared FileCheck runner tests/filecheck/run.sh.
CODEGEN_FC := $(B)/tests/codegen/run-filecheck
TESTS += $(CODEGEN_FC)
$(CODEGEN_FC): $(B)/ovta tests/filecheck/run.sh compiler/codegen.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\ncd "%s" && OVTA="%s/$(B)/ovta" exec bash tests/filecheck/run.sh $(B) tests/codegen/filecheck/*.json "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
