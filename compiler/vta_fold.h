/* vta_fold.h: the loop folding of a tensorized statement into a micro-op kernel (README-vta.md
 * "Passes", 6: fold-uops), shared by the fold-uops pass (compiler/vta_fold.c) and the plan-driven
 * emitter (compiler/vta_lower.c). */
#ifndef OVTA_VTA_FOLD_H
#define OVTA_VTA_FOLD_H

#include <stdint.h>

/* An affine loop of a tensorized statement: extent and the factors of its variable on the flat
 * SRAM element indices dst, src, wgt. `id` is the caller's tag (the pass: the loop's position in
 * the nest), carried through merges (a merged loop keeps its outer loop's name and id). */
typedef struct vta_aloop {
  const char *name;
  int64_t ext, f[3];
  int id;
} vta_aloop;

#define VTA_FOLD_MAX_LOOPS 10

/* The folded kernel: nh host loops (outer first; one kernel per host iteration), nl <= 2
 * hardware loop levels (outer first), nu micro-op loops (outer first). */
typedef struct vta_fold {
  int nh, nl, nu;
  vta_aloop h[8], l[2], u[8];
} vta_fold;

/* Fold n <= VTA_FOLD_MAX_LOOPS loops (outer first): loops of extent 1 vanish; adjacent loops with
 * proportional factors merge (outer factors = inner extent x inner factors, merged extent <=
 * 16383); the two longest (extent <= 16383; ties: the inner one) become the hardware levels; the
 * innermost others become micro-ops while their product stays within `budget`; the rest stay host
 * loops. */
void vta_fold_loops(const vta_aloop *in, int n, int64_t budget, vta_fold *fo);

#endif
