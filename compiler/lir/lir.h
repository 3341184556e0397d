/* lir.h: the loop-IR layer (compiler/lir/, prefix lir_): a small TVM-TIR-like IR between the
 * graph and machine code, and its LLVM-C code generation. The CPU path lowers graph operators to
 * it (compiler/cpu/), the accelerator path lowers into the same IR using the accelerator memory
 * scopes and opaque intrinsics (compiler/accel/). This layer knows nothing of graphs.
 *
 * Sections:
 *   1. Types      - dtypes and memory scopes.
 *   2. Nodes      - buffers, variables, expressions, statements, functions, modules.
 *   3. Builder    - constructors (all memory comes from the function's arena).
 *   4. Queries    - expression equality, variable use, affine forms, a statement walker.
 *   5. Checks     - the verifier.
 *   6. Text       - the stable text dump (FileCheck tests in tests/codegen/).
 *   7. Backend    - LLVM-C code generation, JIT and object files (compiler/lir/codegen.c).
 *
 * Model: a function takes buffer arguments (pointers to dense row-major arrays). Statements
 * are loops, stores, lets, ifs, allocations, attributes and evaluated calls. Expressions are
 * pure except opaque intrinsic calls. Index arithmetic is i64; loops run var = min .. min+extent-1.
 * Buffer accesses take one index per dimension; the backend flattens them row-major (or with
 * the buffer's explicit element strides).
 */
#ifndef OVTA_LOOPIR_H
#define OVTA_LOOPIR_H

#include "ovta_base.h"

/* ---------------------------------------------------------------- 1. Types */

typedef enum lir_dtype {
  LIR_VOID = 0,
  LIR_BOOL, /* i1: comparisons and conditions */
  LIR_I8,
  LIR_U8,
  LIR_I16,
  LIR_U16,
  LIR_I32,
  LIR_U32,
  LIR_I64,
  LIR_U64,
  LIR_F32,
  LIR_F64,
  LIR_F16, /* storage and arithmetic in half precision (LLVM computes each operation in f32 and
              rounds); intrinsics are computed in f32 and rounded once */
  LIR_DTYPE_COUNT
} lir_dtype;

const char *lir_dtype_name(lir_dtype t); /* "f32", "i8", ... */
int lir_dtype_bytes(lir_dtype t);        /* 0 for void, 1 for bool */
bool lir_dtype_is_float(lir_dtype t);
bool lir_dtype_is_signed(lir_dtype t);   /* signed integers (and floats) */
bool lir_dtype_is_int(lir_dtype t);      /* integers, not bool */
/* Parse a name made by lir_dtype_name; LIR_VOID when unknown. */
lir_dtype lir_dtype_parse(const char *name);

/* Where a buffer lives. The CPU backend accepts GLOBAL and LOCAL; the others are the
 * accelerator's on-chip SRAMs and the micro-op buffer, for the accelerator lowering. */
typedef enum lir_scope {
  LIR_SCOPE_GLOBAL = 0, /* DRAM: function arguments, host memory */
  LIR_SCOPE_LOCAL,      /* private scratch (stack/heap on the CPU) */
  LIR_SCOPE_INP,        /* accelerator input SRAM */
  LIR_SCOPE_WGT,        /* accelerator weight SRAM */
  LIR_SCOPE_ACC,        /* accelerator accumulator SRAM */
  LIR_SCOPE_OUT,        /* accelerator output SRAM */
  LIR_SCOPE_UOP,        /* accelerator micro-op SRAM */
  LIR_SCOPE_COUNT
} lir_scope;
const char *lir_scope_name(lir_scope s);

/* ---------------------------------------------------------------- 2. Nodes */

#define LIR_MAX_DIMS 8

typedef struct lir_buf {
  const char *name;            /* unique within the function */
  lir_dtype dtype;             /* element type */
  int ndim;                    /* number of dimensions, 0 for a scalar */
  int64_t shape[LIR_MAX_DIMS]; /* extents */
  int64_t strides[LIR_MAX_DIMS]; /* element strides; row-major from shape unless set */
  lir_scope scope;             /* memory scope */
  bool is_param;               /* a function argument (else created by an ALLOC statement) */
  int id;                      /* position among the function's buffers */
} lir_buf;

typedef struct lir_var {
  const char *name; /* unique within the function (the builder makes it so) */
  lir_dtype dtype;  /* i64 for loop variables */
  int id;           /* position among the function's variables */
} lir_var;

typedef enum lir_expr_kind {
  LIR_E_INT,    /* integer constant (ival), bool too */
  LIR_E_FLOAT,  /* float constant (fval) */
  LIR_E_VAR,    /* a loop or let variable */
  LIR_E_LOAD,   /* buf[idx...] */
  LIR_E_BIN,    /* a op b */
  LIR_E_UN,     /* op a (neg, not) */
  LIR_E_CAST,   /* convert a to dtype (float->int truncates toward zero; int narrowing wraps) */
  LIR_E_SELECT, /* cond ? a : b (both evaluated) */
  LIR_E_CALL,   /* intrinsic call */
} lir_expr_kind;

typedef enum lir_binop {
  LIR_ADD, LIR_SUB, LIR_MUL,
  LIR_DIV,      /* float division; integer division truncating toward zero (x/0 = 0, x%0 = 0) */
  LIR_MOD,      /* integer remainder (sign of a); float fmod */
  LIR_FLOORDIV, /* integer division rounding down */
  LIR_FLOORMOD, /* integer remainder with the sign of b */
  LIR_MIN, LIR_MAX,
  LIR_SHL, LIR_SHR, /* SHR is arithmetic for signed types, logical for unsigned; by the width or
                       more: 0 (SHL, logical SHR) or the sign fill */
  LIR_AND, LIR_OR, LIR_XOR, /* bitwise; on bool, logical */
  LIR_EQ, LIR_NE, LIR_LT, LIR_LE, LIR_GT, LIR_GE, /* result bool */
  LIR_BINOP_COUNT
} lir_binop;

typedef enum lir_unop { LIR_NEG, LIR_NOT, LIR_UNOP_COUNT } lir_unop;

typedef enum lir_intrin {
  LIR_EXP, LIR_LOG, LIR_TANH, LIR_SQRT, LIR_ABS, LIR_FLOOR, LIR_CEIL,
  LIR_ROUND_EVEN, /* round half to even (nearbyint in the default mode) */
  LIR_ERF, LIR_POW, LIR_SIGMOID, /* sigmoid: 1/(1+exp(-x)) */
  LIR_SIN, LIR_COS, LIR_TAN, LIR_ASIN, LIR_ACOS, LIR_ATAN, /* libm's, float only */
  LIR_SINH, LIR_COSH, LIR_ASINH, LIR_ACOSH, LIR_ATANH,
  LIR_FMULADD,    /* fmuladd(a, b, c) = a * b + c, float only; fused into one rounding where the
                     CPU has an FMA (llvm.fmuladd), so the vectorizer may use FMA instructions */
  LIR_OPAQUE,     /* named accelerator or runtime intrinsic (callee), not CPU-compilable */
  LIR_INTRIN_COUNT
} lir_intrin;

typedef struct lir_expr lir_expr;
struct lir_expr {
  lir_expr_kind kind; /* which node */
  lir_dtype dtype;    /* result type */
  int64_t ival;       /* INT: the value */
  double fval;        /* FLOAT: the value */
  lir_var *var;       /* VAR */
  lir_buf *buf;       /* LOAD */
  int op;             /* BIN: lir_binop, UN: lir_unop, CALL: lir_intrin */
  const char *callee; /* CALL with LIR_OPAQUE: the intrinsic name */
  int nargs;          /* LOAD: indices, BIN 2, UN/CAST 1, SELECT 3, CALL: arguments */
  lir_expr **args;    /* operands (LOAD: the indices) */
};

typedef enum lir_stmt_kind {
  LIR_S_SEQ,   /* stmts in order */
  LIR_S_FOR,   /* for var in [min, min+extent): body */
  LIR_S_STORE, /* buf[idx...] = value */
  LIR_S_LET,   /* var = value in body */
  LIR_S_IF,    /* if cond then body else else_body (may be NULL) */
  LIR_S_ALLOC, /* buf allocated for body */
  LIR_S_ATTR,  /* attribute/pragma key = value on body */
  LIR_S_EVAL,  /* evaluate an expression for its effect (opaque calls) */
} lir_stmt_kind;

typedef enum lir_for_kind {
  LIR_FOR_SERIAL = 0,
  LIR_FOR_UNROLLED,   /* hint: unroll fully */
  LIR_FOR_VECTORIZED, /* hint: vectorize (iterations independent) */
  LIR_FOR_PARALLEL,   /* iterations independent; the CPU backend runs them in order */
} lir_for_kind;
const char *lir_for_kind_name(lir_for_kind k);

typedef struct lir_stmt lir_stmt;
struct lir_stmt {
  lir_stmt_kind kind;    /* which node */
  lir_var *var;          /* FOR, LET */
  lir_expr *min;         /* FOR: first value */
  lir_expr *extent;      /* FOR: trip count */
  lir_for_kind for_kind; /* FOR */
  lir_buf *buf;          /* STORE, ALLOC */
  int nidx;              /* STORE: indices */
  lir_expr **idx;        /* STORE: one index per dimension */
  lir_expr *value;       /* STORE, LET, ATTR, IF (the condition), EVAL */
  const char *key;       /* ATTR: the attribute name */
  lir_stmt *body;        /* FOR, LET, IF (then), ALLOC, ATTR */
  lir_stmt *else_body;   /* IF: may be NULL */
  int n;                 /* SEQ: number of statements */
  lir_stmt **stmts;      /* SEQ */
};

typedef struct lir_arena lir_arena; /* bump allocator, private to loopir.c */

typedef struct lir_func {
  const char *name;   /* the symbol name (a C identifier) */
  lir_arena *arena;   /* owns every node, string and array of this function */
  int nparams;        /* buffer arguments, in order */
  lir_buf **params;   /* the arguments */
  int nbufs;          /* all buffers (params and allocations) */
  lir_buf **bufs;     /* by id */
  int nvars;          /* all variables */
  lir_var **vars;     /* by id */
  lir_stmt *body;     /* may be NULL (an empty function) */
} lir_func;

/* ---------------------------------------------------------------- 3. Builder */

/* New empty function named `name` (copied). NULL on out of memory. */
lir_func *lir_func_new(const char *name);
void lir_func_free(lir_func *f);
/* Arena allocation (zeroed) and string copy; both abort-free, return NULL when out of memory.
 * A function out of memory keeps working (builders return shared dummies) and
 * lir_func_oom() tells; lir_verify() reports it. */
void *lir_alloc(lir_func *f, size_t bytes);
const char *lir_strdup(lir_func *f, const char *s);
bool lir_func_oom(const lir_func *f);

/* Buffers. The name is copied and made unique (suffix _N) when taken. */
lir_buf *lir_param(lir_func *f, const char *name, lir_dtype t, int ndim, const int64_t *shape);
lir_buf *lir_buf_new(lir_func *f, const char *name, lir_dtype t, int ndim, const int64_t *shape,
                     lir_scope scope);
int64_t lir_buf_numel(const lir_buf *b);
/* A variable (name made unique). */
lir_var *lir_var_new(lir_func *f, const char *name, lir_dtype t);

/* Expressions. Binary ops need both operands of one dtype (lir_bin checks nothing; the
 * verifier does); the _i helpers take an i64 constant. */
lir_expr *lir_int(lir_func *f, lir_dtype t, int64_t v);
lir_expr *lir_i64(lir_func *f, int64_t v);
lir_expr *lir_float(lir_func *f, lir_dtype t, double v);
lir_expr *lir_f32(lir_func *f, double v);
lir_expr *lir_ref(lir_func *f, lir_var *v);
lir_expr *lir_load(lir_func *f, lir_buf *b, lir_expr **idx);   /* b->ndim indices */
lir_expr *lir_load1(lir_func *f, lir_buf *b, lir_expr *flat);  /* flat index into any buffer */
lir_expr *lir_bin(lir_func *f, lir_binop op, lir_expr *a, lir_expr *b);
lir_expr *lir_un(lir_func *f, lir_unop op, lir_expr *a);
lir_expr *lir_cast(lir_func *f, lir_dtype t, lir_expr *a);
lir_expr *lir_select(lir_func *f, lir_expr *c, lir_expr *a, lir_expr *b);
lir_expr *lir_call(lir_func *f, lir_intrin fn, lir_dtype t, int n, lir_expr **args);
lir_expr *lir_call1(lir_func *f, lir_intrin fn, lir_expr *a); /* result dtype of a */
lir_expr *lir_opaque(lir_func *f, const char *callee, lir_dtype t, int n, lir_expr **args);
/* Runtime calls: an opaque call whose callee starts with LIR_RUNTIME_PREFIX is a call into the
 * accelerator's JIT runtime shims (compiler/accel/accel.h, ovta_vrt_*): `int32_t name(int64_t...)`. The
 * CPU verifier accepts them (i32 result, integer arguments, at most LIR_RUNTIME_MAX_ARGS), the
 * backend emits them as external calls (arguments extended to i64), object files keep them as
 * undefined symbols and a JIT resolves them from lir_jit_define_symbols. */
#define LIR_RUNTIME_PREFIX "ovta_vrt_"
#define LIR_RUNTIME_MAX_ARGS 16
bool lir_is_runtime_call(const lir_expr *e);
/* Shorthands (constant-folded when both are i64 constants, a few identities removed). */
lir_expr *lir_add(lir_func *f, lir_expr *a, lir_expr *b);
lir_expr *lir_sub(lir_func *f, lir_expr *a, lir_expr *b);
lir_expr *lir_mul(lir_func *f, lir_expr *a, lir_expr *b);
lir_expr *lir_min(lir_func *f, lir_expr *a, lir_expr *b);
lir_expr *lir_max(lir_func *f, lir_expr *a, lir_expr *b);
lir_expr *lir_addi(lir_func *f, lir_expr *a, int64_t b);
lir_expr *lir_muli(lir_func *f, lir_expr *a, int64_t b);

/* Statements. */
lir_stmt *lir_seq(lir_func *f, int n, lir_stmt **s);
lir_stmt *lir_for(lir_func *f, lir_var *v, lir_expr *min, lir_expr *extent, lir_for_kind k,
                  lir_stmt *body);
lir_stmt *lir_store(lir_func *f, lir_buf *b, lir_expr **idx, lir_expr *value);
lir_stmt *lir_store1(lir_func *f, lir_buf *b, lir_expr *flat, lir_expr *value);
lir_stmt *lir_let(lir_func *f, lir_var *v, lir_expr *value, lir_stmt *body);
lir_stmt *lir_if(lir_func *f, lir_expr *cond, lir_stmt *then_s, lir_stmt *else_s);
lir_stmt *lir_alloc_stmt(lir_func *f, lir_buf *b, lir_stmt *body);
lir_stmt *lir_attr(lir_func *f, const char *key, lir_expr *value, lir_stmt *body);
lir_stmt *lir_eval(lir_func *f, lir_expr *e);
/* s (FOR, LET, IF, ALLOC or ATTR) with body and else_body (IF; else NULL): s itself when both
 * are its own, else a new statement (copy on write). */
lir_stmt *lir_with_body(lir_func *f, lir_stmt *s, lir_stmt *body, lir_stmt *else_body);

/* A growable statement list, for building SEQ bodies. */
typedef struct lir_block {
  lir_func *f;     /* owner */
  int n;           /* statements so far */
  int cap;         /* capacity */
  lir_stmt **s;    /* arena-allocated array */
} lir_block;
void lir_block_init(lir_block *b, lir_func *f);
void lir_block_add(lir_block *b, lir_stmt *s);
lir_stmt *lir_block_stmt(lir_block *b); /* a SEQ (or the single statement) */

/* Loop-nest helper: build loops over `ndim` extents; vars[i] receive the variables.
 * Call lir_nest_close with the innermost body to get the outermost statement. */
typedef struct lir_nest {
  int n;                        /* loops */
  lir_var *vars[LIR_MAX_DIMS + 4];   /* loop variables, outermost first */
  lir_expr *idx[LIR_MAX_DIMS + 4];   /* lir_ref of each variable */
  int64_t ext[LIR_MAX_DIMS + 4];     /* extents */
} lir_nest;
void lir_nest_open(lir_func *f, lir_nest *n, int ndim, const int64_t *ext, const char *prefix);
lir_stmt *lir_nest_close(lir_func *f, lir_nest *n, lir_stmt *body, lir_for_kind innermost);

/* ---------------------------------------------------------------- 4. Queries */

/* Structural equality of two expressions (NULL equals only NULL). */
bool lir_expr_eq(const lir_expr *a, const lir_expr *b);
/* Does e (may be NULL) refer to variable v? */
bool lir_uses_var(const lir_expr *e, const lir_var *v);
/* The variable of a bare variable reference, else (and for NULL) NULL. */
lir_var *lir_var_of(const lir_expr *e);
/* Is e (may be NULL) a load of the element the store st writes (its buffer, equal indices)? */
bool lir_loads_stored(const lir_stmt *st, const lir_expr *e);

/* An affine form c + sum k[i] * v[i]: one term per variable, in order of first appearance (ok
 * false: not affine, NULL, or more than LIR_AFFINE_TERMS variables). */
#define LIR_AFFINE_TERMS 24
typedef struct lir_affine {
  bool ok;                      /* an affine form */
  int64_t c;                    /* the constant */
  int n;                        /* terms */
  lir_var *v[LIR_AFFINE_TERMS]; /* their variables */
  int64_t k[LIR_AFFINE_TERMS];  /* and coefficients (0 when the terms cancelled) */
} lir_affine;
/* e as an affine form (constants, variables, +, -, negation, * constant, integer casts). */
lir_affine lir_affine_of(const lir_expr *e);
/* Add k * v to a (into v's term when it has one). */
void lir_affine_add(lir_affine *a, lir_var *v, int64_t k);
/* a as an i64 expression: the nonzero terms `v * k` in order, then `+ c`. */
lir_expr *lir_affine_expr(lir_func *f, const lir_affine *a);

/* A statement walk (lir_walk_stmt): visit is called on every statement, parents before children
 * and in order, with its enclosing statements anc[0..depth-1] (outermost first) and the slots that
 * hold them. The visitor may replace an enclosing statement through its slot; the walk goes on
 * into the children of the statement visited, then on with the siblings of its parent. */
#define LIR_WALK_DEPTH 64
typedef struct lir_walk lir_walk;
struct lir_walk {
  int (*visit)(lir_walk *w, lir_stmt **slot); /* *slot: the statement; nonzero stops the walk */
  void *ctx;                                  /* the caller's */
  const char *what;                           /* the caller's name in the nesting error */
  ovta_error *err;                            /* where that error goes */
  int depth;                                  /* enclosing statements of the one visited */
  lir_stmt *anc[LIR_WALK_DEPTH];              /* outermost first */
  lir_stmt **slot[LIR_WALK_DEPTH];            /* where each of them is held */
};
/* Walk *slot: the first nonzero visit result; an error "WHAT: .. nested too deep" past LIR_WALK_DEPTH. */
int lir_walk_stmt(lir_walk *w, lir_stmt **slot);

/* ---------------------------------------------------------------- 5. Checks */

/* Check a function: operand dtypes, index counts, variables defined before use and bound once,
 * buffers declared (parameter or enclosing ALLOC), extents >= 0 when constant, constant indices
 * in bounds. When cpu is true, also that every buffer is in GLOBAL or LOCAL scope and no
 * opaque intrinsic is used. Errors name the function, the buffer or variable. */
int lir_verify(const lir_func *f, bool cpu, ovta_error *err);

/* ---------------------------------------------------------------- 6. Text */

/* The text dump: stable (names and order as built), one statement per line, 2-space indent.
 *   func NAME(A: f32[2, 3] global, ...) {
 *     for i in 0..4 serial {
 *       A[i, j] = (A[i, j] + 1f)
 *     }
 *   }
 */
void lir_dump(FILE *out, const lir_func *f);
/* Same into a malloc'ed string (caller frees); NULL on out of memory. */
char *lir_dump_str(const lir_func *f);

/* ---------------------------------------------------------------- 7. Backend (codegen.c) */

/* A compiled module: LLVM IR for a set of functions, then JIT or object file.
 * Every lir function F becomes an internal `void F.impl(T0 *noalias, T1 *noalias, ...)` and the
 * exported entry point `void F(void **args)` that passes args[0..nparams-1] to it (one calling
 * convention for every kernel, so the executor needs no per-signature glue). */
typedef struct lir_module lir_module;

/* A cache of object code keyed by a module's whole LLVM IR text after optimization (which names
 * the target triple, data layout, CPU and features) and its -O: lir_module_emit_object_mem of a
 * module whose key was seen before copies the earlier object code instead of running LLVM's
 * code generator again (which is deterministic for the same IR and target). max_bytes of keys and
 * code (and at most 4096 entries) are kept, allocated up front, the oldest dropped first; keeping
 * an entry allocates nothing. Thread-safe. Used by the onnx fuzz target, whose mutated models
 * often lower to the same kernels (tests/fuzz/README.md, "onnx speed"). */
typedef struct lir_obj_cache lir_obj_cache;
int lir_obj_cache_new(size_t max_bytes, lir_obj_cache **out, ovta_error *err);
void lir_obj_cache_free(lir_obj_cache *c);
/* Lookups that found their key (hits) and that did not (misses), so far. */
void lir_obj_cache_stats(lir_obj_cache *c, long *hits, long *misses);

typedef struct lir_codegen_opts {
  int opt_level;         /* 0..3: the new pass manager pipeline default<ON> and the machine code
                            generator's level (None, Less, Default, Aggressive); 3 if unset via init */
  bool dump_ir;          /* print the optimized LLVM IR to ir_out (stderr when NULL) */
  bool dump_ir_unopt;    /* print the LLVM IR before optimization */
  FILE *ir_out;          /* where dumps go */
  bool host_cpu;         /* tune for the host CPU (features, vector width); else the architecture's
                            baseline (x86-64, generic) */
  const char *triple;    /* target triple (NULL: this machine's); another machine's only for object
                            files (ovta compile --triple: code for a board's ARM cores) */
  const char *cpu;       /* target CPU by LLVM name ("cortex-a53"; NULL: see host_cpu) */
  lir_obj_cache *obj_cache; /* object code of IR seen before is taken from here (NULL: none) */
} lir_codegen_opts;
void lir_codegen_opts_init(lir_codegen_opts *o); /* O3, host cpu, no dumps */

/* A new module; LLVM is initialized on first use. */
int lir_module_new(const char *name, const lir_codegen_opts *o, lir_module **out, ovta_error *err);
void lir_module_free(lir_module *m);
/* Verify f (cpu) and translate it into the module. f may be freed afterwards. */
int lir_module_add(lir_module *m, const lir_func *f, ovta_error *err);
/* Verify the LLVM module and run the optimization pipeline. Called once, before jit/emit. */
int lir_module_optimize(lir_module *m, ovta_error *err);
/* The LLVM IR as text (caller frees with free()). */
char *lir_module_ir(lir_module *m);
/* Write a relocatable object file for the host target. */
int lir_module_emit_object(lir_module *m, const char *path, ovta_error *err);
/* Object code in memory (malloc'ed, caller frees); through opts.obj_cache when set. */
int lir_module_emit_object_mem(lir_module *m, void **data, size_t *len, ovta_error *err);
/* The module's target: triple, CPU and features (LLVM's strings, owned by m). */
void lir_module_target(const lir_module *m, const char **triple, const char **cpu, const char **features);
/* The vector width (bits) the module's code generator is asked to prefer: 512 (AVX-512 on Intel),
 * 256 (AVX-512 on AMD Zen), 0 when it leaves the choice to LLVM (other targets). The CPU schedules
 * size their register tiles by it (lir_lower_opts.vec_bits). */
int lir_module_vector_bits(const lir_module *m);
/* Whether two triples name the same architecture (their first components). */
bool lir_triple_arch_eq(const char *a, const char *b);
/* Whether code built for triple with features ("+avx2,-avx512f,...") runs on this machine; else
 * an error naming the other architecture or the first missing feature. */
int lir_target_check(const char *triple, const char *features, ovta_error *err);

/* A JIT (ORC LLJIT) holding compiled modules or loaded object files. */
typedef struct lir_jit lir_jit;
int lir_jit_new(lir_jit **out, ovta_error *err);
void lir_jit_free(lir_jit *j);
/* Hand an optimized module to the JIT (the module is consumed: free it as usual afterwards,
 * it is then empty). */
int lir_jit_add_module(lir_jit *j, lir_module *m, ovta_error *err);
/* Add object code (copied). */
int lir_jit_add_object(lir_jit *j, const void *data, size_t len, const char *name, ovta_error *err);
/* Define symbols absolutely in the JIT (e.g. the runtime shims ovta_vrt_* that host code calls),
 * before adding code that refers to them; the host program need not export them. */
int lir_jit_define_symbols(lir_jit *j, int n, const char *const *names, void *const *addrs, ovta_error *err);
/* Address of a function. */
int lir_jit_lookup(lir_jit *j, const char *name, void **fn, ovta_error *err);

/* The entry point type of every compiled function. */
typedef void (*lir_kernel_fn)(void **args);

#endif
