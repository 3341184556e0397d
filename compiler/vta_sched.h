/* vta_sched.h: schedule primitives as loop-IR transformations (compiler/loopir.h), TVM-TIR style.
 * Each primitive rewrites a function in place (new nodes from the function's arena; the old ones
 * stay unreferenced), returns OVTA_OK or an error naming the loop/buffer, and never aborts.
 * vta_sched_verify checks a result: lir_verify plus symbolic bounds of every affine access.
 * Spec: compiler/README-vta.md, "Schedule primitives". FileCheck tests: tests/vta/sched*.test
 * (`ovta-vta sched EXAMPLE SCRIPT`). */
#ifndef OVTA_VTA_SCHED_H
#define OVTA_VTA_SCHED_H

#include "loopir.h"

#define VTA_SCHED_MAX_CACHES 16

/* A schedule being applied to f (not owned). Caches are remembered so compute_at/vthread find
 * their copy nests. */
typedef struct vta_sched {
  lir_func *f;          /* the function rewritten */
  int ncache;           /* caches (and scoped buffers) remembered */
  struct vta_sched_cache {
    lir_buf *cache, *orig; /* the scoped buffer and the buffer it caches (NULL: set_scope) */
    bool write;            /* cache_write (copy out after) or cache_read (copy in before) */
    bool placed;           /* compute_at done (its region is relative to a loop) */
  } cache[VTA_SCHED_MAX_CACHES];
} vta_sched;

void vta_sched_init(vta_sched *s, lir_func *f);

/* The statement slot holding the loop of variable `var` (NULL when none). */
lir_stmt **vta_sched_find_loop(lir_func *f, const char *var);

/* How split treats an extent the factor does not divide. */
typedef enum vta_split_mode {
  VTA_SPLIT_EXACT = 0, /* require divisibility (OVTA_EINVAL otherwise) */
  VTA_SPLIT_GUARD,     /* ceil(ext/factor) outer iterations, body under `if (v < ext)` */
  VTA_SPLIT_TAIL,      /* floor(ext/factor) full tiles, then a tail loop of ext % factor (body copied) */
} vta_split_mode;

/* for v in m..m+E { B }  ->  for v_o in 0..E/F { for v_i in 0..F { B[v := m + v_o*F + v_i] } }
 * (constant extent). Tail mode adds `for v_t in 0..E%F { B[v := m + (E/F)*F + v_t] }`. */
int vta_sched_split(vta_sched *s, const char *var, int64_t factor, vta_split_mode mode, ovta_error *err);
/* Permute a perfect nest of the n loops named (any order inside) into the order given. */
int vta_sched_reorder(vta_sched *s, const char *const *vars, int n, ovta_error *err);
/* Every read of buffer `buf` goes through a new buffer `name` in `scope`, filled by a copy nest
 * (whole buffer) at the top of the function; compute_at then moves it under a loop. */
int vta_sched_cache_read(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* Every write and read of `buf` goes to a new buffer `name` in `scope`; a copy nest after the body
 * writes it back (whole buffer) until compute_at moves it. */
int vta_sched_cache_write(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* Move the copy nest of cache `cache` into the body of loop `var` (before it: read, after: write),
 * shrinking the cache to the region the loop body touches (affine indices; clamp(max(min(A, hi),
 * lo)) indices count as A). The allocation moves with it. */
int vta_sched_compute_at(vta_sched *s, const char *cache, const char *var, ovta_error *err);
/* Virtual threads: the body of loop `var` gets `attr virtual_thread = floormod(var, n)`; each cache
 * named (allocated inside the loop) gets a leading part dimension of n indexed by that value and
 * its allocation hoisted outside the loop (ping-pong buffers). */
int vta_sched_vthread(vta_sched *s, const char *var, int n, const char *const *caches, int ncaches,
                      ovta_error *err);
/* vthread over the fused iteration index of nested loops vars[0..nvars-1] (outermost first, min 0,
 * constant extents): part = floormod(((v0 * E1 + v1) * E2 + v2).., n), the attribute on the body of
 * the innermost; n = 1 adds the part dimension (of 1) and no attribute. */
int vta_sched_vthread_fused(vta_sched *s, const char *const *vars, int nvars, int n, const char *const *caches,
                            int ncaches, ovta_error *err);
/* Loop distribution with scalar expansion (decompose a fused reduction): the perfect nest from loop
 * `var` down to allocations A.. and a sequence S1..Sn becomes the allocations, expanded by the nest's
 * extents and hoisted above it, then one copy of the nest per statement (copy j >= 2 binds fresh
 * variables named V_j). Refused when a buffer other than the A.. written by one statement is
 * accessed by another. */
int vta_sched_fission(vta_sched *s, const char *var, ovta_error *err);
/* The loop of `var` binds a new variable `name` (must be free). */
int vta_sched_rename(vta_sched *s, const char *var, const char *name, ovta_error *err);
/* An allocated buffer moves to `scope` (renamed when name is not NULL); vthread may then part it. */
int vta_sched_set_scope(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* The allocation of `buf` moves to the top of the function. */
int vta_sched_hoist_alloc(vta_sched *s, const char *buf, ovta_error *err);
/* lir_verify (non-CPU rules) plus: every access outside an `if` whose indices are affine in loop
 * variables with constant ranges stays within its buffer; virtual_thread attributes are under
 * the loop they name. */
int vta_sched_verify(const lir_func *f, ovta_error *err);
/* For executing a scheduled function on the CPU (tests): every accelerator scope becomes LOCAL. */
void vta_sched_cpu_scopes(lir_func *f);

/* Apply a script of primitives, one per ';': `split V F [exact|guard|tail]`, `reorder V V...`,
 * `cache_read BUF SCOPE NAME`, `cache_write BUF SCOPE NAME`, `compute_at CACHE V`,
 * `vthread V[,V...] N [CACHE...]`, `fission V`, `rename V NAME`, `set_scope BUF SCOPE [NAME]`,
 * `hoist_alloc BUF`; scopes global local inp wgt acc out uop. After each, vta_sched_verify;
 * when dump is not NULL, "// after N: PRIMITIVE" and the function's dump are printed. */
int vta_sched_apply(vta_sched *s, const char *script, FILE *dump, ovta_error *err);

#endif
