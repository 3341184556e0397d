# compiler/: one folder per layer, each with its one header (compiler/README.md):
#   graph   graph IR, ONNX/JSON import, inference, evaluation, .npy     graph/graph.h
#   passes  graph passes, one file each, and the pipeline                 passes/passes.h
#   lir     loop IR and LLVM-C code generation                            lir/lir.h
#   cpu     graph operators -> loop IR                                     cpu/cpu.h
#   accel   accelerator planning, schedule, lowering stages               accel/accel.h
#   exec    the compile pipeline, the executor, plans, profiling data     exec/exec.h
#   tune    the autotuner and the sweep: search, runners (local, Slurm), log   tune/tune.h
# A layer's objects see only the headers of the layers it may include (COMPILER_USES_*), so a
# lower layer including a higher one's header fails to build. Tools, tests and benches see all.
COMPILER_LAYERS := graph passes lir cpu accel exec tune
COMPILER_USES_graph := graph
COMPILER_USES_passes := passes graph
COMPILER_USES_lir := lir
COMPILER_USES_cpu := cpu lir graph
COMPILER_USES_accel := accel lir graph
COMPILER_USES_exec := exec accel cpu lir passes graph
COMPILER_USES_tune := tune accel lir graph
# The hardware-side folders each compiler layer may include (isa/ and $(B)/gen always).
COMPILER_HW_graph :=
COMPILER_HW_passes :=
COMPILER_HW_lir :=
COMPILER_HW_cpu :=
COMPILER_HW_accel := -Ijit-runtime -Idriver -Iplan
COMPILER_HW_exec := -Ijit-runtime -Idriver -Iplan
COMPILER_HW_tune := -Ijit-runtime -Idriver -Iplan
COMPILER_INC := $(foreach l,$(COMPILER_LAYERS),-Icompiler/$(l))
CPPFLAGS += $(COMPILER_INC)
# $(call compiler_layer_cppflags,LAYER): the preprocessor flags of LAYER's objects (also used by
# the layering test, tests/layers/).
compiler_layer_cppflags = $(BASE_CPPFLAGS) $(foreach u,$(COMPILER_USES_$(1)),-Icompiler/$(u)) $(COMPILER_HW_$(1))
$(foreach l,$(COMPILER_LAYERS),$(eval $(B)/obj/compiler/$(l)/%.o: CPPFLAGS = $(call compiler_layer_cppflags,$(l))))
LIB_SRCS += $(foreach l,$(COMPILER_LAYERS),$(wildcard compiler/$(l)/*.c))

# graph: the ONNX protobuf C code is generated at build time from Debian's python3-onnx onnx.proto.
ONNX_PROTO_DIR ?= $(dir $(firstword $(wildcard /usr/lib/python3/dist-packages/onnx/onnx.proto) \
  $(shell dpkg -L python3-onnx 2>/dev/null | grep '/onnx\.proto$$')))
ONNX_PB_C := $(B)/gen/onnx.pb-c.c
ONNX_PB_H := $(B)/gen/onnx.pb-c.h
GEN += $(ONNX_PB_H)
LIB_SRCS += $(ONNX_PB_C)
LDLIBS += -lprotobuf-c

$(ONNX_PB_C) $(ONNX_PB_H) &: $(ONNX_PROTO_DIR)onnx.proto | $(B)/gen
	protoc-c --c_out=$(B)/gen -I$(ONNX_PROTO_DIR) $(ONNX_PROTO_DIR)onnx.proto

# protobuf-c's generated code is not -Wextra clean
$(B)/obj/$(ONNX_PB_C:.c=.o): CFLAGS += -Wno-unused-parameter -Wno-missing-field-initializers

# lir: only the LLVM backend sees the LLVM-C headers; everything that links libovta.a may pull it in.
LLVM_CONFIG ?= llvm-config-15
LLVM_INC := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null || echo /usr/lib/llvm-15/include)
LLVM_LIBDIR := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null || echo /usr/lib/llvm-15/lib)
$(B)/obj/compiler/lir/codegen.o: CPPFLAGS += -I$(LLVM_INC)
# exec: a saved plan's kernels.so is kernels.o linked by Debian's ld.lld (lld-15): one linker for
# every target, no cross toolchain.
LLD ?= $(firstword $(wildcard /usr/bin/ld.lld-15 /usr/lib/llvm-15/bin/ld.lld) ld.lld-15)
$(B)/obj/compiler/exec/exec.o: CPPFLAGS += -DOVTA_LLD=\"$(LLD)\"
LDLIBS += -L$(LLVM_LIBDIR) -lLLVM-15
# tune: the cost model is Debian's libxgboost-dev (C API).
LDLIBS += -lxgboost
FILECHECK ?= /usr/lib/llvm-15/bin/FileCheck
