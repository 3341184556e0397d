# plan/: the plan runtime (plan/ovta_plan.h): plan folders loaded, bound, run on the CPU and a
# device, saved; the accelerator host code's runtime shims. Below the compiler: it sees only
# isa/, hw/sim/, driver/ and jit-runtime/ (Makefile), so `ovta-rt` links without compiler/,
# LLVM or protobuf (tools/tools.mk).
LIB_SRCS += plan/plan.c plan/vrt.c plan/io.c plan/digest.c plan/remote.c plan/serve.c plan/client.c
