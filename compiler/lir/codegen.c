/* codegen.c: loop IR -> LLVM IR through the LLVM-C API, new pass manager O3, then the ORC LLJIT
 * or an object file (see lir.h section 7). */
#include "lir.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* ---------------------------------------------------------------- set-up */

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static int llvm_init_rc;

static void llvm_init(void) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter() || LLVMInitializeNativeAsmParser())
    llvm_init_rc = -1;
}

/* Every target LLVM was built with, for object files of another machine (lir_codegen_opts.triple). */
static pthread_once_t llvm_all_once = PTHREAD_ONCE_INIT;
static void llvm_init_all(void) {
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  LLVMInitializeAllAsmPrinters();
}

/* Turn an LLVMErrorRef into an ovta_error (consumes it). */
static int llvm_fail(ovta_error *err, LLVMErrorRef e, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  int rc = OVTA_FAIL(err, OVTA_EINTERNAL, "LLVM: %s: %s", what, m ? m : "?");
  LLVMDisposeErrorMessage(m);
  return rc;
}

void lir_codegen_opts_init(lir_codegen_opts *o) {
  memset(o, 0, sizeof *o);
  o->opt_level = 3;
  o->host_cpu = true;
}

struct lir_module {
  lir_codegen_opts opts;          /* options */
  LLVMOrcThreadSafeContextRef tsc; /* owns ctx (so the module can go to the JIT) */
  LLVMContextRef ctx;             /* the LLVM context */
  LLVMModuleRef mod;              /* NULL after handed to the JIT */
  LLVMTargetMachineRef tm;        /* host target machine */
  char *cpu;                      /* target cpu name (LLVM string) */
  char *features;                 /* target features (LLVM string) */
  char *triple;                   /* target triple (LLVM string) */
  bool optimized;                 /* lir_module_optimize ran */
};

/* LLVM diagnostics: remarks and warnings (e.g. "loop not vectorized" for a vectorize hint the
 * vectorizer could not honour) are dropped; errors reach us through return values. */
static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
  (void)di;
  (void)ctx;
}

/* The machine code generator's level follows the IR pipeline's -O, as clang's does: -O0 is
 * FastISel and the fast register allocator (no loop strength reduction, no scheduling). It was
 * Aggressive at every -O: at -O0 (the onnx fuzz target's builds) the object code took 95% of a
 * build, e.g. 104 of 109 s of CPU replaying the fuzz corpus (tests/fuzz/README.md, "onnx speed"). */
static LLVMCodeGenOptLevel codegen_level(int opt_level) {
  return opt_level <= 0 ? LLVMCodeGenLevelNone : opt_level == 1 ? LLVMCodeGenLevelLess
         : opt_level == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
}

int lir_module_new(const char *name, const lir_codegen_opts *o, lir_module **out, ovta_error *err) {
  *out = NULL;
  pthread_once(&llvm_once, llvm_init);
  if (llvm_init_rc) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "LLVM: no native target");
  lir_module *m = calloc(1, sizeof *m);
  if (!m) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for module %s", name);
  if (o) m->opts = *o;
  else lir_codegen_opts_init(&m->opts);
  m->tsc = LLVMOrcCreateNewThreadSafeContext();
  m->ctx = LLVMOrcThreadSafeContextGetContext(m->tsc);
  LLVMContextSetDiagnosticHandler(m->ctx, diag_handler, NULL);
  m->mod = LLVMModuleCreateWithNameInContext(name, m->ctx);
  char *host = LLVMGetDefaultTargetTriple();
  char *triple = m->opts.triple ? LLVMNormalizeTargetTriple(m->opts.triple) : LLVMCreateMessage(host);
  bool native = lir_triple_arch_eq(triple, host);
  LLVMDisposeMessage(host);
  if (!native) pthread_once(&llvm_all_once, llvm_init_all);
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    int rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "LLVM: no target for %s: %s", triple, msg ? msg : "?");
    LLVMDisposeMessage(msg);
    LLVMDisposeMessage(triple);
    lir_module_free(m);
    return rc;
  }
  if (m->opts.cpu) { /* named: its features are the CPU's own */
    m->cpu = LLVMCreateMessage(m->opts.cpu);
    m->features = LLVMCreateMessage("");
  } else if (m->opts.host_cpu && native) {
    m->cpu = LLVMGetHostCPUName();
    m->features = LLVMGetHostCPUFeatures();
  } else { /* the architecture's baseline */
    m->cpu = LLVMCreateMessage(!strncmp(triple, "x86_64", 6) ? "x86-64" : "generic");
    m->features = LLVMCreateMessage("");
  }
  /* x86-64: the large code model. The JIT (LLJIT over RuntimeDyld's SectionMemoryManager) maps a
   * module's code and its data (GOT, constants) separately; once the process holds gigabytes
   * (vit_h_14's 2.5 GB of weights) they can land more than 2 GiB apart, and the small model's
   * 32-bit PC-relative relocations are then truncated without an error (a jump to garbage).
   * The large model reaches them with 64-bit addresses; its cost on the fp32 CPU path was not
   * measurable (tests/zoo/README.md, 2026-11-27). Other targets keep the default. */
  LLVMCodeModel cm = !strncmp(triple, "x86_64", 6) ? LLVMCodeModelLarge : LLVMCodeModelDefault;
  m->tm = LLVMCreateTargetMachine(target, triple, m->cpu, m->features, codegen_level(m->opts.opt_level),
                                  LLVMRelocPIC, cm);
  if (!m->tm) {
    int rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "LLVM: no target machine for %s (cpu %s)", triple, m->cpu);
    LLVMDisposeMessage(triple);
    lir_module_free(m);
    return rc;
  }
  LLVMSetTarget(m->mod, triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(m->tm);
  char *dl = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m->mod, dl);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(td);
  m->triple = triple;
  *out = m;
  return 0;
}

void lir_module_free(lir_module *m) {
  if (!m) return;
  if (m->mod) LLVMDisposeModule(m->mod);
  if (m->tm) LLVMDisposeTargetMachine(m->tm);
  if (m->tsc) LLVMOrcDisposeThreadSafeContext(m->tsc);
  if (m->cpu) LLVMDisposeMessage(m->cpu);
  if (m->features) LLVMDisposeMessage(m->features);
  if (m->triple) LLVMDisposeMessage(m->triple);
  free(m);
}

/* ---------------------------------------------------------------- translation */

typedef struct gctx {
  lir_module *m;          /* module */
  const lir_func *f;      /* function translated */
  LLVMBuilderRef b;       /* instruction builder */
  LLVMBuilderRef ab;      /* builder for allocas in the entry block */
  LLVMValueRef fn;        /* the implementation function */
  LLVMValueRef *vars;     /* per var id: its current SSA value */
  LLVMValueRef *bufs;     /* per buf id: its base pointer */
  LLVMTypeRef i64;        /* i64 */
  LLVMTypeRef ptr;        /* opaque pointer */
  ovta_error *err;        /* where errors go */
  int rc;                 /* first error */
  int npar;               /* parallel loops outlined so far (their functions' names) */
  bool in_par;            /* inside an outlined parallel body: inner parallel loops run serially */
} gctx;

static LLVMTypeRef ty(gctx *g, lir_dtype t) {
  LLVMContextRef c = g->m->ctx;
  switch (t) {
  case LIR_VOID: return LLVMVoidTypeInContext(c);
  case LIR_BOOL: return LLVMInt1TypeInContext(c);
  case LIR_I8: case LIR_U8: return LLVMInt8TypeInContext(c);
  case LIR_I16: case LIR_U16: return LLVMInt16TypeInContext(c);
  case LIR_I32: case LIR_U32: return LLVMInt32TypeInContext(c);
  case LIR_I64: case LIR_U64: return LLVMInt64TypeInContext(c);
  case LIR_F32: return LLVMFloatTypeInContext(c);
  case LIR_F64: return LLVMDoubleTypeInContext(c);
  case LIR_F16: return LLVMHalfTypeInContext(c);
  default: unreachable();
  }
}

/* Call an overloaded LLVM intrinsic on one type. */
static LLVMValueRef intrinsic(gctx *g, const char *name, LLVMTypeRef t, int n, LLVMValueRef *args) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) unreachable();
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(g->m->mod, id, &t, 1);
  LLVMTypeRef ft = LLVMIntrinsicGetType(g->m->ctx, id, &t, 1);
  return LLVMBuildCall2(g->b, ft, decl, args, (unsigned)n, "");
}

/* Call a C library function `name` of type t(t...). */
static LLVMValueRef libcall(gctx *g, const char *name, LLVMTypeRef t, int n, LLVMValueRef *args) {
  LLVMTypeRef ps[4] = {t, t, t, t};
  LLVMTypeRef ft = LLVMFunctionType(t, ps, (unsigned)n, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(g->m->mod, name);
  if (!fn) {
    fn = LLVMAddFunction(g->m->mod, name, ft);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->m->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
  }
  return LLVMBuildCall2(g->b, ft, fn, args, (unsigned)n, "");
}

static LLVMValueRef g_expr(gctx *g, const lir_expr *e);

/* Address of buf[idx...]. */
static LLVMValueRef g_addr(gctx *g, const lir_buf *b, int n, lir_expr *const *idx) {
  LLVMValueRef flat = LLVMConstInt(g->i64, 0, 0);
  for (int i = 0; i < n; i++) {
    LLVMValueRef v = g_expr(g, idx[i]);
    if (LLVMTypeOf(v) != g->i64)
      v = lir_dtype_is_signed(idx[i]->dtype) ? LLVMBuildSExt(g->b, v, g->i64, "")
                                             : LLVMBuildZExt(g->b, v, g->i64, "");
    if (b->strides[i] != 1) v = LLVMBuildNSWMul(g->b, v, LLVMConstInt(g->i64, (unsigned long long)b->strides[i], 1), "");
    flat = i == 0 ? v : LLVMBuildNSWAdd(g->b, flat, v, "");
  }
  LLVMValueRef base = g->bufs[b->id];
  return LLVMBuildInBoundsGEP2(g->b, ty(g, b->dtype), base, &flat, 1, b->name);
}

/* Integer division and remainder never trap: a divisor of 0, or -1 with the most negative
 * dividend (signed), becomes 1 in the instruction (d); *zero is set when the result must be 0
 * instead (a divisor of 0: x/0 = x%0 = 0, as the constant-folding evaluator gives), or NULL
 * when b is a constant that cannot trap (then d = b: index arithmetic stays a plain division). */
static LLVMValueRef safe_divisor(LLVMBuilderRef B, LLVMValueRef a, LLVMValueRef b, bool s, LLVMValueRef *zero) {
  *zero = NULL;
  if (LLVMIsAConstantInt(b)) {
    long long v = LLVMConstIntGetSExtValue(b);
    if (v != 0 && !(s && v == -1)) return b;
  }
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef z = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0);
  *zero = LLVMBuildICmp(B, LLVMIntEQ, b, z, "");
  LLVMValueRef bad = *zero;
  if (s) {
    unsigned bits = LLVMGetIntTypeWidth(t);
    LLVMValueRef min = LLVMConstInt(t, 1ULL << (bits - 1), 0), m1 = LLVMConstAllOnes(t);
    bad = LLVMBuildOr(B, bad, LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, a, min, ""),
                                          LLVMBuildICmp(B, LLVMIntEQ, b, m1, ""), ""), "");
  }
  return LLVMBuildSelect(B, bad, one, b, "");
}

static LLVMValueRef g_intdiv(LLVMBuilderRef B, lir_binop op, LLVMValueRef a, LLVMValueRef b0, bool s) {
  LLVMValueRef zero, b = safe_divisor(B, a, b0, s, &zero), r;
  LLVMValueRef z = LLVMConstInt(LLVMTypeOf(a), 0, 0);
  switch (op) {
  case LIR_DIV: r = s ? LLVMBuildSDiv(B, a, b, "") : LLVMBuildUDiv(B, a, b, ""); break;
  case LIR_MOD: r = s ? LLVMBuildSRem(B, a, b, "") : LLVMBuildURem(B, a, b, ""); break;
  case LIR_FLOORDIV: {
    if (!s) {
      r = LLVMBuildUDiv(B, a, b, "");
      break;
    }
    /* q = a/b; if (a%b != 0 && (a<0) != (b<0)) q -= 1 */
    LLVMValueRef q = LLVMBuildSDiv(B, a, b, ""), rem = LLVMBuildSRem(B, a, b, "");
    LLVMValueRef adj = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, rem, z, ""),
                                    LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, rem, z, ""),
                                                 LLVMBuildICmp(B, LLVMIntSLT, b, z, ""), ""), "");
    r = LLVMBuildSub(B, q, LLVMBuildZExt(B, adj, LLVMTypeOf(a), ""), "");
    break;
  }
  default: { /* LIR_FLOORMOD */
    if (!s) {
      r = LLVMBuildURem(B, a, b, "");
      break;
    }
    LLVMValueRef rem = LLVMBuildSRem(B, a, b, "");
    LLVMValueRef adj = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, rem, z, ""),
                                    LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, rem, z, ""),
                                                 LLVMBuildICmp(B, LLVMIntSLT, b, z, ""), ""), "");
    r = LLVMBuildSelect(B, adj, LLVMBuildAdd(B, rem, b, ""), rem, "");
  }
  }
  return zero ? LLVMBuildSelect(B, zero, z, r, "") : r;
}

/* Shifts by the type's width or more (or a negative amount) are poison in LLVM: they give 0
 * (SHL, logical SHR) or the sign fill (arithmetic SHR), as shifting one bit at a time would. */
static LLVMValueRef g_shift(LLVMBuilderRef B, lir_binop op, LLVMValueRef a, LLVMValueRef b, bool s) {
  LLVMTypeRef t = LLVMTypeOf(a);
  unsigned bits = LLVMGetIntTypeWidth(t);
  if (LLVMIsAConstantInt(b) && LLVMConstIntGetZExtValue(b) < bits)
    return op == LIR_SHL ? LLVMBuildShl(B, a, b, "") : s ? LLVMBuildAShr(B, a, b, "") : LLVMBuildLShr(B, a, b, "");
  LLVMValueRef w = LLVMConstInt(t, bits, 0), m = LLVMConstInt(t, bits - 1, 0);
  LLVMValueRef big = LLVMBuildICmp(B, LLVMIntUGE, b, w, ""), bb = LLVMBuildSelect(B, big, m, b, "");
  if (op == LIR_SHR && s) return LLVMBuildAShr(B, a, bb, ""); /* bits-1: the sign fill */
  LLVMValueRef r = op == LIR_SHL ? LLVMBuildShl(B, a, bb, "") : LLVMBuildLShr(B, a, bb, "");
  return LLVMBuildSelect(B, big, LLVMConstInt(t, 0, 0), r, "");
}

static LLVMValueRef g_bin(gctx *g, const lir_expr *e) {
  LLVMValueRef a = g_expr(g, e->args[0]), b = g_expr(g, e->args[1]);
  lir_dtype t = e->args[0]->dtype;
  LLVMBuilderRef B = g->b;
  if (lir_dtype_is_float(t)) {
    switch (e->op) {
    case LIR_ADD: return LLVMBuildFAdd(B, a, b, "");
    case LIR_SUB: return LLVMBuildFSub(B, a, b, "");
    case LIR_MUL: return LLVMBuildFMul(B, a, b, "");
    case LIR_DIV: return LLVMBuildFDiv(B, a, b, "");
    case LIR_MOD: return LLVMBuildFRem(B, a, b, "");
    case LIR_MIN: return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, a, b, ""), a, b, "");
    case LIR_MAX: return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, a, b, ""), a, b, "");
    case LIR_EQ: return LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "");
    case LIR_NE: return LLVMBuildFCmp(B, LLVMRealUNE, a, b, "");
    case LIR_LT: return LLVMBuildFCmp(B, LLVMRealOLT, a, b, "");
    case LIR_LE: return LLVMBuildFCmp(B, LLVMRealOLE, a, b, "");
    case LIR_GT: return LLVMBuildFCmp(B, LLVMRealOGT, a, b, "");
    case LIR_GE: return LLVMBuildFCmp(B, LLVMRealOGE, a, b, "");
    default: unreachable(); /* the verifier rejects the rest */
    }
  }
  bool s = lir_dtype_is_signed(t);
  switch (e->op) {
  case LIR_ADD: return t == LIR_I64 ? LLVMBuildNSWAdd(B, a, b, "") : LLVMBuildAdd(B, a, b, "");
  case LIR_SUB: return t == LIR_I64 ? LLVMBuildNSWSub(B, a, b, "") : LLVMBuildSub(B, a, b, "");
  case LIR_MUL: return t == LIR_I64 ? LLVMBuildNSWMul(B, a, b, "") : LLVMBuildMul(B, a, b, "");
  case LIR_DIV:
  case LIR_MOD:
  case LIR_FLOORDIV:
  case LIR_FLOORMOD: return g_intdiv(B, e->op, a, b, s);
  case LIR_MIN: return LLVMBuildSelect(B, LLVMBuildICmp(B, s ? LLVMIntSLT : LLVMIntULT, a, b, ""), a, b, "");
  case LIR_MAX: return LLVMBuildSelect(B, LLVMBuildICmp(B, s ? LLVMIntSGT : LLVMIntUGT, a, b, ""), a, b, "");
  case LIR_SHL:
  case LIR_SHR: return g_shift(B, e->op, a, b, s);
  case LIR_AND: return LLVMBuildAnd(B, a, b, "");
  case LIR_OR: return LLVMBuildOr(B, a, b, "");
  case LIR_XOR: return LLVMBuildXor(B, a, b, "");
  case LIR_EQ: return LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
  case LIR_NE: return LLVMBuildICmp(B, LLVMIntNE, a, b, "");
  case LIR_LT: return LLVMBuildICmp(B, s ? LLVMIntSLT : LLVMIntULT, a, b, "");
  case LIR_LE: return LLVMBuildICmp(B, s ? LLVMIntSLE : LLVMIntULE, a, b, "");
  case LIR_GT: return LLVMBuildICmp(B, s ? LLVMIntSGT : LLVMIntUGT, a, b, "");
  case LIR_GE: return LLVMBuildICmp(B, s ? LLVMIntSGE : LLVMIntUGE, a, b, "");
  default: unreachable();
  }
}

static LLVMValueRef g_cast(gctx *g, const lir_expr *e) {
  LLVMValueRef a = g_expr(g, e->args[0]);
  lir_dtype from = e->args[0]->dtype, to = e->dtype;
  LLVMTypeRef tt = ty(g, to);
  LLVMBuilderRef B = g->b;
  if (from == to) return a;
  if (to == LIR_BOOL) {
    if (lir_dtype_is_float(from)) return LLVMBuildFCmp(B, LLVMRealUNE, a, LLVMConstReal(LLVMTypeOf(a), 0), "");
    return LLVMBuildICmp(B, LLVMIntNE, a, LLVMConstInt(LLVMTypeOf(a), 0, 0), "");
  }
  if (lir_dtype_is_float(from) && lir_dtype_is_float(to))
    return lir_dtype_bytes(to) > lir_dtype_bytes(from) ? LLVMBuildFPExt(B, a, tt, "") : LLVMBuildFPTrunc(B, a, tt, "");
  if (lir_dtype_is_float(from))
    return lir_dtype_is_signed(to) ? LLVMBuildFPToSI(B, a, tt, "") : LLVMBuildFPToUI(B, a, tt, "");
  if (lir_dtype_is_float(to))
    return lir_dtype_is_signed(from) ? LLVMBuildSIToFP(B, a, tt, "") : LLVMBuildUIToFP(B, a, tt, "");
  int fb = from == LIR_BOOL ? 0 : lir_dtype_bytes(from), tb = lir_dtype_bytes(to);
  if (tb == fb) return a; /* same width, other signedness */
  if (tb < fb) return LLVMBuildTrunc(B, a, tt, "");
  return lir_dtype_is_signed(from) ? LLVMBuildSExt(B, a, tt, "") : LLVMBuildZExt(B, a, tt, "");
}

/* A call into the JIT runtime (lir_is_runtime_call): `i32 name(i64, ...)`, declared external
 * (an undefined symbol in object files; the JIT resolves it from lir_jit_define_symbols). */
static LLVMValueRef g_runtime_call(gctx *g, const lir_expr *e) {
  LLVMValueRef a[LIR_RUNTIME_MAX_ARGS];
  LLVMTypeRef ps[LIR_RUNTIME_MAX_ARGS];
  for (int i = 0; i < e->nargs; i++) {
    LLVMValueRef v = g_expr(g, e->args[i]);
    if (LLVMTypeOf(v) != g->i64)
      v = lir_dtype_is_signed(e->args[i]->dtype) ? LLVMBuildSExt(g->b, v, g->i64, "") : LLVMBuildZExt(g->b, v, g->i64, "");
    a[i] = v, ps[i] = g->i64;
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->m->ctx);
  LLVMTypeRef ft = LLVMFunctionType(i32, ps, (unsigned)e->nargs, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(g->m->mod, e->callee);
  if (!fn) {
    fn = LLVMAddFunction(g->m->mod, e->callee, ft);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->m->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
  } else if (LLVMGlobalGetValueType(fn) != ft) {
    if (!g->rc)
      g->rc = OVTA_FAIL(g->err, OVTA_EINVAL, "%s: runtime call %s with %d arguments, elsewhere with another count",
                        g->f->name, e->callee, e->nargs);
    return LLVMConstInt(i32, 0, 0);
  }
  return LLVMBuildCall2(g->b, ft, fn, a, (unsigned)e->nargs, "");
}

static LLVMValueRef g_call_t(gctx *g, const lir_expr *e, LLVMValueRef *a, LLVMTypeRef t, bool f32);

static LLVMValueRef g_call(gctx *g, const lir_expr *e) {
  if (e->op == LIR_OPAQUE) return g_runtime_call(g, e); /* the verifier let only runtime calls through */
  LLVMValueRef a[3];
  for (int i = 0; i < e->nargs && i < 3; i++) a[i] = g_expr(g, e->args[i]);
  if (e->dtype != LIR_F16) return g_call_t(g, e, a, ty(g, e->dtype), e->dtype == LIR_F32);
  /* f16: computed in f32, rounded to f16 once */
  LLVMTypeRef f = LLVMFloatTypeInContext(g->m->ctx);
  for (int i = 0; i < e->nargs && i < 3; i++) a[i] = LLVMBuildFPExt(g->b, a[i], f, "");
  return LLVMBuildFPTrunc(g->b, g_call_t(g, e, a, f, true), ty(g, LIR_F16), "");
}

/* Intrinsic e on the values a of LLVM type t (f32: t is float). */
static LLVMValueRef g_call_t(gctx *g, const lir_expr *e, LLVMValueRef *a, LLVMTypeRef t, bool f32) {
  switch (e->op) {
  case LIR_EXP: return intrinsic(g, "llvm.exp", t, 1, a);
  case LIR_LOG: return intrinsic(g, "llvm.log", t, 1, a);
  case LIR_SQRT: return intrinsic(g, "llvm.sqrt", t, 1, a);
  case LIR_FLOOR: return intrinsic(g, "llvm.floor", t, 1, a);
  case LIR_CEIL: return intrinsic(g, "llvm.ceil", t, 1, a);
  case LIR_ROUND_EVEN: return intrinsic(g, "llvm.rint", t, 1, a); /* default rounding mode: half to even */
  case LIR_POW: return intrinsic(g, "llvm.pow", t, 2, a);
  case LIR_FMULADD: return intrinsic(g, "llvm.fmuladd", t, 3, a);
  case LIR_TANH: return libcall(g, f32 ? "tanhf" : "tanh", t, 1, a);
  case LIR_ERF: return libcall(g, f32 ? "erff" : "erf", t, 1, a);
  case LIR_SIN: return intrinsic(g, "llvm.sin", t, 1, a);
  case LIR_COS: return intrinsic(g, "llvm.cos", t, 1, a);
  case LIR_TAN: return libcall(g, f32 ? "tanf" : "tan", t, 1, a);
  case LIR_ASIN: return libcall(g, f32 ? "asinf" : "asin", t, 1, a);
  case LIR_ACOS: return libcall(g, f32 ? "acosf" : "acos", t, 1, a);
  case LIR_ATAN: return libcall(g, f32 ? "atanf" : "atan", t, 1, a);
  case LIR_SINH: return libcall(g, f32 ? "sinhf" : "sinh", t, 1, a);
  case LIR_COSH: return libcall(g, f32 ? "coshf" : "cosh", t, 1, a);
  case LIR_ASINH: return libcall(g, f32 ? "asinhf" : "asinh", t, 1, a);
  case LIR_ACOSH: return libcall(g, f32 ? "acoshf" : "acosh", t, 1, a);
  case LIR_ATANH: return libcall(g, f32 ? "atanhf" : "atanh", t, 1, a);
  case LIR_ABS:
    if (lir_dtype_is_float(e->dtype)) return intrinsic(g, "llvm.fabs", t, 1, a);
    if (!lir_dtype_is_signed(e->dtype)) return a[0];
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a[0], LLVMConstInt(t, 0, 0), ""),
                           LLVMBuildNeg(g->b, a[0], ""), a[0], "");
  case LIR_SIGMOID: {
    /* 1 / (1 + exp(-x)) */
    LLVMValueRef n = LLVMBuildFNeg(g->b, a[0], "");
    LLVMValueRef ex = intrinsic(g, "llvm.exp", t, 1, &n);
    LLVMValueRef one = LLVMConstReal(t, 1.0);
    return LLVMBuildFDiv(g->b, one, LLVMBuildFAdd(g->b, one, ex, ""), "");
  }
  default: unreachable(); /* opaque rejected by the verifier */
  }
}

static LLVMValueRef g_expr(gctx *g, const lir_expr *e) {
  switch (e->kind) {
  case LIR_E_INT: return LLVMConstInt(ty(g, e->dtype), (unsigned long long)e->ival, lir_dtype_is_signed(e->dtype));
  case LIR_E_FLOAT: return LLVMConstReal(ty(g, e->dtype), e->fval);
  case LIR_E_VAR: return g->vars[e->var->id];
  case LIR_E_LOAD: {
    LLVMValueRef p = g_addr(g, e->buf, e->nargs, e->args);
    return LLVMBuildLoad2(g->b, ty(g, e->dtype), p, "");
  }
  case LIR_E_BIN: return g_bin(g, e);
  case LIR_E_UN: {
    LLVMValueRef a = g_expr(g, e->args[0]);
    if (e->op == LIR_NOT) return LLVMBuildNot(g->b, a, "");
    return lir_dtype_is_float(e->dtype) ? LLVMBuildFNeg(g->b, a, "") : LLVMBuildNeg(g->b, a, "");
  }
  case LIR_E_CAST: return g_cast(g, e);
  case LIR_E_SELECT: {
    LLVMValueRef c = g_expr(g, e->args[0]), a = g_expr(g, e->args[1]), b = g_expr(g, e->args[2]);
    return LLVMBuildSelect(g->b, c, a, b, "");
  }
  case LIR_E_CALL: return g_call(g, e);
  }
  unreachable();
}

/* Attach llvm.loop metadata with one boolean (val) or empty property to a latch branch. */
static void loop_md(gctx *g, LLVMValueRef br, const char *prop, bool val) {
  LLVMContextRef c = g->m->ctx;
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(c, NULL, 0);
  LLVMMetadataRef pm[2] = {LLVMMDStringInContext2(c, prop, strlen(prop)),
                           LLVMValueAsMetadata(LLVMConstInt(LLVMInt1TypeInContext(c), val, 0))};
  bool has_val = strstr(prop, ".enable") != NULL;
  LLVMMetadataRef pnode = LLVMMDNodeInContext2(c, pm, has_val ? 2 : 1);
  LLVMMetadataRef lm[2] = {tmp, pnode};
  LLVMMetadataRef node = LLVMMDNodeInContext2(c, lm, 2);
  LLVMMetadataReplaceAllUsesWith(tmp, node);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c, "llvm.loop", 9), LLVMMetadataAsValue(c, node));
}

static void g_parallel(gctx *g, const lir_stmt *s);
static void g_stmt(gctx *g, const lir_stmt *s);

/* Does s hold a vectorized loop (not counting those inside another loop)? */
static bool holds_vectorized(const lir_stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case LIR_S_FOR: return s->for_kind == LIR_FOR_VECTORIZED;
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++)
      if (holds_vectorized(s->stmts[i])) return true;
    return false;
  case LIR_S_IF: return holds_vectorized(s->body) || holds_vectorized(s->else_body);
  case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR: return holds_vectorized(s->body);
  default: return false;
  }
}

/* The loop s from lo over ext iterations (values computed by the caller). */
static void g_for_range(gctx *g, const lir_stmt *s, LLVMValueRef lo, LLVMValueRef ext) {
  LLVMBuilderRef B = g->b;
  LLVMContextRef C = g->m->ctx;
  LLVMValueRef end = LLVMBuildNSWAdd(B, lo, ext, "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(C, g->fn, s->var->name);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(C, g->fn, "body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(C, g->fn, "exit");
  LLVMBuildBr(B, head);
  LLVMPositionBuilderAtEnd(B, head);
  LLVMValueRef phi = LLVMBuildPhi(B, g->i64, s->var->name);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, phi, end, ""), body, exit);
  LLVMPositionBuilderAtEnd(B, body);
  g->vars[s->var->id] = phi;
  g_stmt(g, s->body);
  LLVMValueRef next = LLVMBuildNSWAdd(B, phi, LLVMConstInt(g->i64, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMValueRef br = LLVMBuildBr(B, head);
  if (s->for_kind == LIR_FOR_VECTORIZED) loop_md(g, br, "llvm.loop.vectorize.enable", true);
  else if (s->for_kind == LIR_FOR_UNROLLED) loop_md(g, br, "llvm.loop.unroll.full", true);
  /* a serial loop around a vectorized one is not vectorized itself: LLVM fully unrolled short
   * inner loops (a depthwise conv's rows of 28) and vectorized the outer one with gathers and
   * scatters (int8 MobileNetV2's 28x28 depthwise convs ran at 2x their fp32 time) */
  else if (s->for_kind == LIR_FOR_SERIAL && holds_vectorized(s->body)) loop_md(g, br, "llvm.loop.vectorize.enable", false);
  LLVMValueRef inc[2] = {lo, next};
  LLVMBasicBlockRef from[2] = {pre, latch};
  LLVMAddIncoming(phi, inc, from, 2);
  LLVMPositionBuilderAtEnd(B, exit);
}

static void g_stmt(gctx *g, const lir_stmt *s) {
  LLVMBuilderRef B = g->b;
  LLVMContextRef C = g->m->ctx;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) g_stmt(g, s->stmts[i]);
    return;
  case LIR_S_FOR: {
    if (s->for_kind == LIR_FOR_PARALLEL && !g->in_par) {
      g_parallel(g, s);
      return;
    }
    g_for_range(g, s, g_expr(g, s->min), g_expr(g, s->extent));
    return;
  }
  case LIR_S_STORE: {
    LLVMValueRef v = g_expr(g, s->value);
    LLVMValueRef p = g_addr(g, s->buf, s->nidx, s->idx);
    LLVMBuildStore(B, v, p);
    return;
  }
  case LIR_S_LET:
    g->vars[s->var->id] = g_expr(g, s->value);
    g_stmt(g, s->body);
    return;
  case LIR_S_IF: {
    LLVMValueRef c = g_expr(g, s->value);
    LLVMBasicBlockRef th = LLVMAppendBasicBlockInContext(C, g->fn, "then");
    LLVMBasicBlockRef el = s->else_body ? LLVMAppendBasicBlockInContext(C, g->fn, "else") : NULL;
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(C, g->fn, "endif");
    LLVMBuildCondBr(B, c, th, el ? el : join);
    LLVMPositionBuilderAtEnd(B, th);
    g_stmt(g, s->body);
    LLVMBuildBr(B, join);
    if (el) {
      LLVMPositionBuilderAtEnd(B, el);
      g_stmt(g, s->else_body);
      LLVMBuildBr(B, join);
    }
    LLVMPositionBuilderAtEnd(B, join);
    return;
  }
  case LIR_S_ALLOC: {
    const lir_buf *b = s->buf;
    int64_t n = lir_buf_numel(b);
    uint64_t bytes = (uint64_t)n * (uint64_t)lir_dtype_bytes(b->dtype);
    LLVMTypeRef et = ty(g, b->dtype);
    if (bytes <= 65536) {
      /* small: a stack array in the entry block */
      LLVMValueRef cnt = LLVMConstInt(g->i64, (unsigned long long)(n ? n : 1), 0);
      g->bufs[b->id] = LLVMBuildArrayAlloca(g->ab, et, cnt, b->name);
      LLVMSetAlignment(g->bufs[b->id], 64);
      g_stmt(g, s->body);
    } else {
      LLVMTypeRef i64 = g->i64;
      LLVMTypeRef mft = LLVMFunctionType(g->ptr, &i64, 1, 0);
      LLVMValueRef mf = LLVMGetNamedFunction(g->m->mod, "malloc");
      if (!mf) mf = LLVMAddFunction(g->m->mod, "malloc", mft);
      LLVMValueRef sz = LLVMConstInt(i64, bytes, 0);
      g->bufs[b->id] = LLVMBuildCall2(B, mft, mf, &sz, 1, b->name);
      g_stmt(g, s->body);
      LLVMTypeRef pt = g->ptr;
      LLVMTypeRef fft = LLVMFunctionType(LLVMVoidTypeInContext(C), &pt, 1, 0);
      LLVMValueRef ff = LLVMGetNamedFunction(g->m->mod, "free");
      if (!ff) ff = LLVMAddFunction(g->m->mod, "free", fft);
      LLVMValueRef p = g->bufs[b->id];
      LLVMBuildCall2(B, fft, ff, &p, 1, "");
    }
    return;
  }
  case LIR_S_ATTR:
    g_stmt(g, s->body);
    return;
  case LIR_S_EVAL:
    g_expr(g, s->value);
    return;
  }
  unreachable();
}

static void fn_attr(lir_module *m, LLVMValueRef fn, const char *k) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(m->ctx, LLVMGetEnumAttributeKindForName(k, strlen(k)), 0));
}
/* The vector width the loop vectorizer prefers (NULL: LLVM's choice for the CPU). With AVX-512,
 * 512 bits on Intel (LLVM's default for Skylake-X and later is 256; the conv and matmul schedules'
 * register tiles are two 16-float vectors), but 256 on AMD Zen (LLVM 15 names Zen 4 "znver3" and
 * then prefers 512): Zen 4 runs 512-bit operations as two 256-bit halves, and fp32 ResNet-18 took
 * 88 ms with 512-bit vectors against 42 ms with 256 (bench/README.md, 2026-11-28). */
static const char *vector_width(const lir_module *m) {
  if (!strstr(m->features, "+avx512f")) return NULL;
  return strncmp(m->cpu, "znver", 5) ? "512" : "256";
}

static void target_attrs(lir_module *m, LLVMValueRef fn) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(m->ctx, "target-cpu", 10, m->cpu, (unsigned)strlen(m->cpu)));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(m->ctx, "target-features", 15, m->features,
                                                    (unsigned)strlen(m->features)));
  fn_attr(m, fn, "nounwind");
  const char *vw = vector_width(m);
  if (vw)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(m->ctx, "prefer-vector-width", 19, vw, (unsigned)strlen(vw)));
}


/* ---------------------------------------------------------------- parallel loops */

/* What a statement uses from outside: variables read but not bound in it, buffers accessed but
 * not allocated in it (flags by id). */
typedef struct captures {
  bool *var_used, *var_bound; /* per var id */
  bool *buf_used, *buf_alloc; /* per buf id */
} captures;

static void cap_expr(captures *c, const lir_expr *e) {
  if (!e) return;
  if (e->kind == LIR_E_VAR) c->var_used[e->var->id] = true;
  if (e->kind == LIR_E_LOAD) c->buf_used[e->buf->id] = true;
  for (int i = 0; i < e->nargs; i++) cap_expr(c, e->args[i]);
}

static void cap_stmt(captures *c, const lir_stmt *s) {
  if (!s) return;
  if (s->kind == LIR_S_FOR || s->kind == LIR_S_LET) c->var_bound[s->var->id] = true;
  if (s->kind == LIR_S_STORE) c->buf_used[s->buf->id] = true;
  if (s->kind == LIR_S_ALLOC) c->buf_alloc[s->buf->id] = true;
  cap_expr(c, s->min);
  cap_expr(c, s->extent);
  cap_expr(c, s->value);
  for (int i = 0; i < s->nidx; i++) cap_expr(c, s->idx[i]);
  cap_stmt(c, s->body);
  cap_stmt(c, s->else_body);
  for (int i = 0; i < s->n; i++) cap_stmt(c, s->stmts[i]);
}

/* A parallel loop `for v in min..min+ext parallel { body }` (outermost: inner ones run serially)
 * is outlined: its body becomes F.parK(buffers noalias..., values..., i64 lo, i64 hi) running
 * v = min + lo .. min + hi - 1 with the buffers and variables it uses from outside (and min) as
 * arguments, and a trampoline F.parK.t(ptr ctx, i64 lo, i64 hi) that loads them from a context
 * array of 8-byte slots filled here; then ovta_par_for(F.parK.t, ctx, ext) (isa/parallel.c) runs
 * the iterations on the thread pool. */
static void g_parallel(gctx *g, const lir_stmt *s) {
  const lir_func *f = g->f;
  LLVMContextRef C = g->m->ctx;
  captures c = {calloc((size_t)f->nvars + 1, 1), calloc((size_t)f->nvars + 1, 1), calloc((size_t)f->nbufs + 1, 1),
                calloc((size_t)f->nbufs + 1, 1)};
  int cap = f->nvars + f->nbufs + 3;
  LLVMValueRef *vals = calloc((size_t)cap, sizeof *vals);
  LLVMTypeRef *tys = calloc((size_t)cap, sizeof *tys);
  int *ids = calloc((size_t)cap, sizeof *ids); /* buf id, or -1 - var id */
  if (!c.var_used || !c.var_bound || !c.buf_used || !c.buf_alloc || !vals || !tys || !ids) {
    if (!g->rc) g->rc = OVTA_FAIL(g->err, OVTA_ENOMEM, "%s: out of memory outlining a parallel loop", f->name);
    goto out;
  }
  c.var_bound[s->var->id] = true;
  cap_stmt(&c, s->body);
  int n = 0;
  for (int i = 0; i < f->nbufs; i++)
    if (c.buf_used[i] && !c.buf_alloc[i]) vals[n] = g->bufs[i], tys[n] = g->ptr, ids[n++] = i;
  for (int i = 0; i < f->nvars; i++)
    if (c.var_used[i] && !c.var_bound[i]) vals[n] = g->vars[i], tys[n] = ty(g, f->vars[i]->dtype), ids[n++] = -1 - i;
  LLVMValueRef lo = g_expr(g, s->min), ext = g_expr(g, s->extent);
  int nc = n; /* captured; then min, lo, hi */
  tys[n] = g->i64, tys[n + 1] = g->i64, tys[n + 2] = g->i64;
  char name[300];
  snprintf(name, sizeof name, "%s.par%d", f->name, g->npar++);
  LLVMTypeRef bft = LLVMFunctionType(LLVMVoidTypeInContext(C), tys, (unsigned)n + 3, 0);
  LLVMValueRef bfn = LLVMAddFunction(g->m->mod, name, bft);
  LLVMSetLinkage(bfn, LLVMInternalLinkage);
  target_attrs(g->m, bfn);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (int i = 0; i < nc; i++)
    if (ids[i] >= 0) LLVMAddAttributeAtIndex(bfn, (unsigned)i + 1, LLVMCreateEnumAttribute(C, noalias, 0));
  /* the body function: entry (allocas), then the loop */
  LLVMValueRef sfn = g->fn;
  LLVMBuilderRef sb = g->b, sab = g->ab;
  LLVMValueRef *saved = calloc((size_t)nc + 1, sizeof *saved);
  g->fn = bfn;
  g->b = LLVMCreateBuilderInContext(C);
  g->ab = LLVMCreateBuilderInContext(C);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, bfn, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(C, bfn, "start");
  LLVMPositionBuilderAtEnd(g->ab, entry);
  LLVMPositionBuilderAtEnd(g->b, start);
  for (int i = 0; i < nc; i++) {
    LLVMValueRef p = LLVMGetParam(bfn, (unsigned)i);
    if (ids[i] >= 0) saved[i] = g->bufs[ids[i]], g->bufs[ids[i]] = p;
    else saved[i] = g->vars[-1 - ids[i]], g->vars[-1 - ids[i]] = p;
  }
  lir_stmt inner = *s;
  inner.for_kind = LIR_FOR_SERIAL;
  LLVMValueRef pmin = LLVMGetParam(bfn, (unsigned)nc), plo = LLVMGetParam(bfn, (unsigned)nc + 1),
               phi = LLVMGetParam(bfn, (unsigned)nc + 2);
  LLVMValueRef first = LLVMBuildNSWAdd(g->b, pmin, plo, ""), cnt = LLVMBuildNSWSub(g->b, phi, plo, "");
  bool sp = g->in_par;
  g->in_par = true;
  g_for_range(g, &inner, first, cnt);
  g->in_par = sp;
  LLVMBuildRetVoid(g->b);
  LLVMBuildBr(g->ab, start);
  LLVMDisposeBuilder(g->b);
  LLVMDisposeBuilder(g->ab);
  for (int i = 0; i < nc; i++) {
    if (ids[i] >= 0) g->bufs[ids[i]] = saved[i];
    else g->vars[-1 - ids[i]] = saved[i];
  }
  free(saved);
  g->fn = sfn, g->b = sb, g->ab = sab;
  /* the trampoline: loads the slots, calls the body */
  snprintf(name, sizeof name, "%s.par%d.t", f->name, g->npar - 1);
  LLVMTypeRef tps[3] = {g->ptr, g->i64, g->i64};
  LLVMTypeRef tft = LLVMFunctionType(LLVMVoidTypeInContext(C), tps, 3, 0);
  LLVMValueRef tfn = LLVMAddFunction(g->m->mod, name, tft);
  LLVMSetLinkage(tfn, LLVMInternalLinkage);
  target_attrs(g->m, tfn);
  LLVMBuilderRef tb = LLVMCreateBuilderInContext(C);
  LLVMPositionBuilderAtEnd(tb, LLVMAppendBasicBlockInContext(C, tfn, "entry"));
  LLVMValueRef *args = calloc((size_t)nc + 3, sizeof *args);
  for (int i = 0; i <= nc; i++) {
    LLVMValueRef ix = LLVMConstInt(g->i64, (unsigned long long)i, 0);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(tb, g->i64, LLVMGetParam(tfn, 0), &ix, 1, "");
    args[i] = LLVMBuildLoad2(tb, tys[i], slot, "");
  }
  args[nc + 1] = LLVMGetParam(tfn, 1), args[nc + 2] = LLVMGetParam(tfn, 2);
  LLVMBuildCall2(tb, bft, bfn, args, (unsigned)nc + 3, "");
  LLVMBuildRetVoid(tb);
  LLVMDisposeBuilder(tb);
  free(args);
  /* the call site: the context slots, then ovta_par_for(trampoline, ctx, ext) */
  LLVMValueRef ctx = LLVMBuildArrayAlloca(g->ab, g->i64, LLVMConstInt(g->i64, (unsigned long long)nc + 1, 0), "par.ctx");
  vals[nc] = lo;
  for (int i = 0; i <= nc; i++) {
    LLVMValueRef ix = LLVMConstInt(g->i64, (unsigned long long)i, 0);
    LLVMBuildStore(g->b, vals[i], LLVMBuildInBoundsGEP2(g->b, g->i64, ctx, &ix, 1, ""));
  }
  LLVMTypeRef pps[3] = {g->ptr, g->ptr, g->i64};
  LLVMTypeRef pft = LLVMFunctionType(LLVMVoidTypeInContext(C), pps, 3, 0);
  LLVMValueRef pf = LLVMGetNamedFunction(g->m->mod, "ovta_par_for");
  if (!pf) {
    pf = LLVMAddFunction(g->m->mod, "ovta_par_for", pft);
    LLVMSetLinkage(pf, LLVMExternalLinkage);
  }
  LLVMValueRef pa[3] = {tfn, ctx, ext};
  LLVMBuildCall2(g->b, pft, pf, pa, 3, "");
out:
  free(c.var_used), free(c.var_bound), free(c.buf_used), free(c.buf_alloc);
  free(vals), free(tys), free(ids);
}

int lir_module_add(lir_module *m, const lir_func *f, ovta_error *err) {
  if (!m->mod) return OVTA_FAIL(err, OVTA_EINVAL, "%s: module already handed to the JIT", f->name);
  if (m->optimized) return OVTA_FAIL(err, OVTA_EINVAL, "%s: module already optimized", f->name);
  int rc = lir_verify(f, true, err);
  if (rc) return rc;
  if (LLVMGetNamedFunction(m->mod, f->name))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: a function of this name is already in the module", f->name);
  gctx g = {0};
  g.m = m;
  g.f = f;
  g.err = err;
  g.i64 = LLVMInt64TypeInContext(m->ctx);
  g.ptr = LLVMPointerTypeInContext(m->ctx, 0);
  g.vars = calloc((size_t)f->nvars + 1, sizeof *g.vars);
  g.bufs = calloc((size_t)f->nbufs + 1, sizeof *g.bufs);
  if (!g.vars || !g.bufs) {
    free(g.vars);
    free(g.bufs);
    return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory in codegen", f->name);
  }
  /* implementation: void F.impl(ptr noalias, ...) */
  LLVMTypeRef *pts = calloc((size_t)f->nparams + 1, sizeof *pts);
  for (int i = 0; i < f->nparams; i++) pts[i] = g.ptr;
  LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(m->ctx), pts, (unsigned)f->nparams, 0);
  char iname[300];
  snprintf(iname, sizeof iname, "%s.impl", f->name);
  g.fn = LLVMAddFunction(m->mod, iname, ft);
  LLVMSetLinkage(g.fn, LLVMInternalLinkage);
  target_attrs(m, g.fn);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (int i = 0; i < f->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(g.fn, (unsigned)i);
    LLVMSetValueName2(p, f->params[i]->name, strlen(f->params[i]->name));
    LLVMAddAttributeAtIndex(g.fn, (unsigned)i + 1, LLVMCreateEnumAttribute(m->ctx, noalias, 0));
    g.bufs[f->params[i]->id] = p;
  }
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(m->ctx, g.fn, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(m->ctx, g.fn, "start");
  g.b = LLVMCreateBuilderInContext(m->ctx);
  g.ab = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(g.ab, entry);
  LLVMPositionBuilderAtEnd(g.b, start);
  if (f->body) g_stmt(&g, f->body);
  LLVMBuildRetVoid(g.b);
  LLVMBuildBr(g.ab, start); /* entry: allocas, then jump to the code */

  /* entry point: void F(ptr args) */
  LLVMTypeRef pp = g.ptr;
  LLVMTypeRef wft = LLVMFunctionType(LLVMVoidTypeInContext(m->ctx), &pp, 1, 0);
  LLVMValueRef w = LLVMAddFunction(m->mod, f->name, wft);
  target_attrs(m, w);
  LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(m->ctx, w, "entry"));
  LLVMValueRef *args = calloc((size_t)f->nparams + 1, sizeof *args);
  for (int i = 0; i < f->nparams; i++) {
    LLVMValueRef idx = LLVMConstInt(g.i64, (unsigned long long)i, 0);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(g.b, g.ptr, LLVMGetParam(w, 0), &idx, 1, "");
    args[i] = LLVMBuildLoad2(g.b, g.ptr, slot, f->params[i]->name);
  }
  LLVMBuildCall2(g.b, ft, g.fn, args, (unsigned)f->nparams, "");
  LLVMBuildRetVoid(g.b);
  LLVMDisposeBuilder(g.b);
  LLVMDisposeBuilder(g.ab);
  free(args);
  free(pts);
  free(g.vars);
  free(g.bufs);
  return g.rc;
}

int lir_module_optimize(lir_module *m, ovta_error *err) {
  if (!m->mod) return OVTA_FAIL(err, OVTA_EINVAL, "module already handed to the JIT");
  if (m->optimized) return 0;
  FILE *o = m->opts.ir_out ? m->opts.ir_out : stderr;
  if (m->opts.dump_ir_unopt) {
    char *s = LLVMPrintModuleToString(m->mod);
    fprintf(o, "; ---- LLVM IR before optimization\n%s", s);
    LLVMDisposeMessage(s);
  }
  char *msg = NULL;
  if (LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg)) {
    int rc = OVTA_FAIL(err, OVTA_EINTERNAL, "LLVM module %s does not verify: %.600s",
                       LLVMGetModuleIdentifier(m->mod, &(size_t){0}), msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return rc;
  }
  LLVMDisposeMessage(msg);
  int lvl = m->opts.opt_level < 0 ? 0 : m->opts.opt_level > 3 ? 3 : m->opts.opt_level;
  char pipe[32];
  snprintf(pipe, sizeof pipe, "default<O%d>", lvl);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, lvl >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(po, lvl >= 2);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, lvl >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, lvl >= 2);
  LLVMErrorRef e = LLVMRunPasses(m->mod, pipe, m->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) return llvm_fail(err, e, "optimization pipeline");
  m->optimized = true;
  if (m->opts.dump_ir) {
    char *s = LLVMPrintModuleToString(m->mod);
    fprintf(o, "; ---- LLVM IR after %s\n%s", pipe, s);
    LLVMDisposeMessage(s);
  }
  return 0;
}

char *lir_module_ir(lir_module *m) {
  if (!m->mod) return NULL;
  char *s = LLVMPrintModuleToString(m->mod);
  char *r = strdup(s);
  LLVMDisposeMessage(s);
  return r;
}

/* ---- targets: which machine an object file is for, and whether it runs here */

/* The architecture is the triple's first component ("x86_64", "aarch64", "armv7a"). */
bool lir_triple_arch_eq(const char *a, const char *b) {
  size_t la = strcspn(a, "-"), lb = strcspn(b, "-");
  return la == lb && !strncmp(a, b, la);
}

void lir_module_target(const lir_module *m, const char **triple, const char **cpu, const char **features) {
  *triple = m->triple, *cpu = m->cpu, *features = m->features;
}

int lir_module_vector_bits(const lir_module *m) {
  const char *vw = vector_width(m);
  return vw ? atoi(vw) : 0;
}

/* Runs here: the same architecture, and every feature the code was built with ("+avx2", from
 * LLVMGetHostCPUFeatures on the machine that compiled it) present on this one. */
int lir_target_check(const char *triple, const char *features, ovta_error *err) {
  pthread_once(&llvm_once, llvm_init);
  char *host = LLVMGetDefaultTargetTriple();
  int rc = 0;
  if (!lir_triple_arch_eq(triple, host)) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "compiled for %s, this machine is %s", triple, host);
    LLVMDisposeMessage(host);
    return rc;
  }
  LLVMDisposeMessage(host);
  char *have = LLVMGetHostCPUFeatures();
  for (const char *f = features; f && *f;) {
    size_t n = strcspn(f, ",");
    if (*f == '+') {
      bool found = false;
      for (const char *h = have; h && *h && !found;) {
        size_t hn = strcspn(h, ",");
        found = hn == n && !strncmp(h, f, n);
        h += hn + (h[hn] == ',');
      }
      if (!found) {
        rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "compiled for a CPU with %.*s, which this machine lacks", (int)n - 1, f + 1);
        break;
      }
    }
    f += n + (f[n] == ',');
  }
  LLVMDisposeMessage(have);
  return rc;
}

int lir_module_emit_object(lir_module *m, const char *path, ovta_error *err) {
  if (!m->mod) return OVTA_FAIL(err, OVTA_EINVAL, "%s: module already handed to the JIT", path);
  char *msg = NULL;
  if (LLVMTargetMachineEmitToFile(m->tm, m->mod, (char *)path, LLVMObjectFile, &msg)) {
    int rc = OVTA_FAIL(err, OVTA_EIO, "LLVM: cannot write object file %s: %s", path, msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return rc;
  }
  return 0;
}

/* ---- the object code cache (lir.h): one block of memory allocated up front, written as a ring
 * (each entry its key, then its code; the oldest entries give way), so that keeping an entry
 * allocates nothing: under libFuzzer a run with more mallocs than frees is run again to look
 * for a leak. Entries, oldest first, in a circular array, found by a scan of their hashes. */

typedef struct obj_entry {
  uint64_t hash; /* FNV-1a of the key */
  int opt;       /* the module's -O */
  size_t off;    /* where the key starts in the ring; the code follows it */
  size_t klen;   /* the key's length: the module's IR text */
  size_t len;    /* the code's bytes */
} obj_entry;

#define OBJ_CACHE_ENTRIES 4096

struct lir_obj_cache {
  pthread_mutex_t mu; /* guards everything below */
  char *mem;          /* the ring of keys and code */
  size_t size;        /* its bytes */
  size_t head;        /* where the next entry goes */
  obj_entry e[OBJ_CACHE_ENTRIES]; /* entries: e[(first + i) % OBJ_CACHE_ENTRIES], i < n, oldest first */
  int first, n;       /* the oldest entry, entries held */
  long hits, misses;  /* lookups that found their key, that did not */
};

int lir_obj_cache_new(size_t max_bytes, lir_obj_cache **out, ovta_error *err) {
  lir_obj_cache *c = calloc(1, sizeof *c);
  if (c) c->mem = malloc(max_bytes ? max_bytes : 1);
  if (!c || !c->mem) {
    free(c);
    *out = NULL;
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for an object code cache of %zu bytes", max_bytes);
  }
  pthread_mutex_init(&c->mu, NULL);
  c->size = max_bytes;
  *out = c;
  return 0;
}

void lir_obj_cache_free(lir_obj_cache *c) {
  if (!c) return;
  pthread_mutex_destroy(&c->mu);
  free(c->mem);
  free(c);
}

void lir_obj_cache_stats(lir_obj_cache *c, long *hits, long *misses) {
  pthread_mutex_lock(&c->mu);
  *hits = c->hits, *misses = c->misses;
  pthread_mutex_unlock(&c->mu);
}

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* A copy of the code cached under (key, opt) (true), or false (a miss, counted). */
static bool cache_find(lir_obj_cache *c, const char *key, size_t klen, int opt, uint64_t h, void **data, size_t *len) {
  pthread_mutex_lock(&c->mu);
  bool found = false;
  for (int i = c->n - 1; i >= 0 && !found; i--) {
    const obj_entry *e = &c->e[(c->first + i) % OBJ_CACHE_ENTRIES];
    if (e->hash != h || e->opt != opt || e->klen != klen || memcmp(c->mem + e->off, key, klen)) continue;
    found = (*data = malloc(e->len ? e->len : 1)) != NULL;
    if (found) memcpy(*data, c->mem + e->off + klen, e->len), *len = e->len;
  }
  if (found) c->hits++;
  else c->misses++;
  pthread_mutex_unlock(&c->mu);
  return found;
}

/* Keep (key, opt) -> code at the ring's head (at its start when it does not fit before the
 * end), dropping the oldest entries where it goes; an entry larger than the ring: not kept. */
static void cache_put(lir_obj_cache *c, const char *key, size_t klen, int opt, uint64_t h, const void *data, size_t len) {
  size_t sz = klen + len;
  if (sz > c->size) return;
  pthread_mutex_lock(&c->mu);
  size_t off = c->head;
  bool wrap = off + sz > c->size;
  if (wrap) off = 0;
  while (c->n > 0) { /* the oldest: past the old head when wrapping, else overlapping [off, off + sz) */
    const obj_entry *o = &c->e[c->first];
    bool over = o->off < off + sz && off < o->off + o->klen + o->len;
    if (c->n < OBJ_CACHE_ENTRIES && !over && !(wrap && o->off >= c->head)) break;
    c->first = (c->first + 1) % OBJ_CACHE_ENTRIES, c->n--;
  }
  memcpy(c->mem + off, key, klen);
  memcpy(c->mem + off + klen, data, len);
  c->e[(c->first + c->n) % OBJ_CACHE_ENTRIES] = (obj_entry){h, opt, off, klen, len};
  c->n++;
  c->head = off + sz;
  pthread_mutex_unlock(&c->mu);
}

static int emit_mem(lir_module *m, void **data, size_t *len, ovta_error *err);

int lir_module_emit_object_mem(lir_module *m, void **data, size_t *len, ovta_error *err) {
  *data = NULL;
  *len = 0;
  if (!m->mod) return OVTA_FAIL(err, OVTA_EINVAL, "module already handed to the JIT");
  lir_obj_cache *c = m->opts.obj_cache;
  if (!c) return emit_mem(m, data, len, err);
  char *key = LLVMPrintModuleToString(m->mod);
  size_t klen = strlen(key);
  uint64_t h = fnv1a(key, klen);
  int rc = 0;
  if (!cache_find(c, key, klen, m->opts.opt_level, h, data, len) && !(rc = emit_mem(m, data, len, err)))
    cache_put(c, key, klen, m->opts.opt_level, h, *data, *len);
  LLVMDisposeMessage(key);
  return rc;
}

/* Object code in memory from LLVM's code generator. */
static int emit_mem(lir_module *m, void **data, size_t *len, ovta_error *err) {
  char *msg = NULL;
  LLVMMemoryBufferRef mb;
  if (LLVMTargetMachineEmitToMemoryBuffer(m->tm, m->mod, LLVMObjectFile, &msg, &mb)) {
    int rc = OVTA_FAIL(err, OVTA_EINTERNAL, "LLVM: cannot emit object code: %s", msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return rc;
  }
  size_t n = LLVMGetBufferSize(mb);
  *data = malloc(n ? n : 1);
  if (!*data) {
    LLVMDisposeMemoryBuffer(mb);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %zu bytes of object code", n);
  }
  memcpy(*data, LLVMGetBufferStart(mb), n);
  *len = n;
  LLVMDisposeMemoryBuffer(mb);
  return 0;
}

/* ---------------------------------------------------------------- JIT */

struct lir_jit {
  LLVMOrcLLJITRef j; /* the LLJIT */
  int nobj;          /* objects added (for unique buffer names) */
};

#ifdef __FLT16_MAX__
/* The half-precision conversions LLVM calls where the CPU has none (x86-64 without F16C):
 * GCC's own (libgcc), with the same calling convention (_Float16 in an SSE register). */
static float ovta_h2f(_Float16 h) { return (float)h; }
static _Float16 ovta_f2h(float f) { return (_Float16)f; }
static _Float16 ovta_d2h(double d) { return (_Float16)d; }
#define HALF_SYMS {"__extendhfsf2", (void *)ovta_h2f}, {"__truncsfhf2", (void *)ovta_f2h}, {"__truncdfhf2", (void *)ovta_d2h},
#else
#define HALF_SYMS
#endif

/* C library functions generated code may call, defined absolutely so the JIT does not
 * depend on what the host program happens to link. */
static const struct {
  const char *name; /* symbol */
  void *addr;       /* its address */
} LIBSYMS[] = {
    {"tanhf", (void *)tanhf}, {"tanh", (void *)tanh}, {"erff", (void *)erff}, {"erf", (void *)erf},
    {"expf", (void *)expf},   {"exp", (void *)exp},   {"logf", (void *)logf}, {"log", (void *)log},
    {"powf", (void *)powf},   {"pow", (void *)pow},   {"rintf", (void *)rintf}, {"rint", (void *)rint},
    {"floorf", (void *)floorf}, {"ceilf", (void *)ceilf}, {"fmodf", (void *)fmodf}, {"fmod", (void *)fmod},
    {"sqrtf", (void *)sqrtf}, {"sqrt", (void *)sqrt}, {"floor", (void *)floor}, {"ceil", (void *)ceil},
    {"sinf", (void *)sinf}, {"sin", (void *)sin}, {"cosf", (void *)cosf}, {"cos", (void *)cos},
    {"tanf", (void *)tanf}, {"tan", (void *)tan}, {"asinf", (void *)asinf}, {"asin", (void *)asin},
    {"acosf", (void *)acosf}, {"acos", (void *)acos}, {"atanf", (void *)atanf}, {"atan", (void *)atan},
    {"sinhf", (void *)sinhf}, {"sinh", (void *)sinh}, {"coshf", (void *)coshf}, {"cosh", (void *)cosh},
    {"asinhf", (void *)asinhf}, {"asinh", (void *)asinh}, {"acoshf", (void *)acoshf}, {"acosh", (void *)acosh},
    {"atanhf", (void *)atanhf}, {"atanh", (void *)atanh}, {"malloc", (void *)malloc}, {"free", (void *)free},
    HALF_SYMS
    {"memset", (void *)memset}, {"memcpy", (void *)memcpy}, {"memmove", (void *)memmove},
    {"ovta_par_for", (void *)ovta_par_for},
};

int lir_jit_new(lir_jit **out, ovta_error *err) {
  *out = NULL;
  pthread_once(&llvm_once, llvm_init);
  if (llvm_init_rc) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "LLVM: no native target");
  lir_jit *jt = calloc(1, sizeof *jt);
  if (!jt) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for the JIT");
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&jt->j, jb);
  if (e) {
    free(jt);
    return llvm_fail(err, e, "creating the JIT");
  }
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jt->j);
  size_t n = sizeof LIBSYMS / sizeof LIBSYMS[0];
  LLVMOrcCSymbolMapPair pairs[sizeof LIBSYMS / sizeof LIBSYMS[0]];
  for (size_t i = 0; i < n; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jt->j, LIBSYMS[i].name);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)LIBSYMS[i].addr;
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  e = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, n));
  if (e) {
    lir_jit_free(jt);
    return llvm_fail(err, e, "defining library symbols");
  }
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jt->j), NULL, NULL);
  if (e) {
    lir_jit_free(jt);
    return llvm_fail(err, e, "process symbol generator");
  }
  LLVMOrcJITDylibAddGenerator(jd, gen);
  *out = jt;
  return 0;
}

void lir_jit_free(lir_jit *j) {
  if (!j) return;
  if (j->j) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->j);
    if (e) LLVMConsumeError(e);
  }
  free(j);
}

int lir_jit_add_module(lir_jit *j, lir_module *m, ovta_error *err) {
  if (m->mod && lir_target_check(m->triple, m->features, err)) return ovta_error_wrap(err, "JIT");
  if (!m->mod) return OVTA_FAIL(err, OVTA_EINVAL, "module already handed to a JIT");
  if (!m->optimized) {
    int rc = lir_module_optimize(m, err);
    if (rc) return rc;
  }
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m->mod, m->tsc);
  m->mod = NULL; /* owned by tsm now */
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(j->j, LLVMOrcLLJITGetMainJITDylib(j->j), tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    return llvm_fail(err, e, "adding a module to the JIT");
  }
  return 0;
}

int lir_jit_add_object(lir_jit *j, const void *data, size_t len, const char *name, ovta_error *err) {
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFile(j->j, LLVMOrcLLJITGetMainJITDylib(j->j), mb);
  if (e) return llvm_fail(err, e, name);
  j->nobj++;
  return 0;
}

int lir_jit_define_symbols(lir_jit *j, int n, const char *const *names, void *const *addrs, ovta_error *err) {
  if (n <= 0) return 0;
  LLVMOrcCSymbolMapPair *pairs = calloc((size_t)n, sizeof *pairs);
  if (!pairs) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %d JIT symbols", n);
  for (int i = 0; i < n; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(j->j, names[i]);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)addrs[i];
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  LLVMErrorRef e = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(j->j), LLVMOrcAbsoluteSymbols(pairs, (size_t)n));
  free(pairs);
  if (e) return llvm_fail(err, e, "defining runtime symbols");
  return 0;
}

int lir_jit_lookup(lir_jit *j, const char *name, void **fn, ovta_error *err) {
  LLVMOrcExecutorAddress a = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->j, &a, name);
  if (e) return llvm_fail(err, e, name);
  *fn = (void *)(uintptr_t)a;
  return 0;
}
