/* measure.c: one tuning candidate measured alone: the layer compiled with the candidate's knobs,
 * run on random data on a fresh device, its output checked against the plain-C reference and its
 * cycles read from the device counters (compiler/tune/tune.h). */
#include "tune.h"

#include <stdlib.h>

/* Deterministic pseudo-random int8 data. */
static void fill(int8_t *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 7u;
  for (size_t i = 0; i < n; i++) s = s * 1103515245u + 12345u, x[i] = (int8_t)(s >> 16);
}

/* The host data of a trial: plain and packed operands, the reference output. */
typedef struct trial_data {
  size_t nx, nw, ny, nb, ni;        /* bytes: input, weights, output, packed bias, a fused add's identity block */
  int8_t *x, *w, *px, *pw, *py, *y, *ref;
  int8_t *r, *pr, *id;              /* a fused add (op.res): its operand r, plain and packed like y; the identity */
  int32_t *b, *pb;                  /* bias: plain (op.o), packed */
} trial_data;

static void data_free(trial_data *d) {
  free(d->x), free(d->w), free(d->px), free(d->pw), free(d->py), free(d->y), free(d->ref), free(d->b), free(d->pb);
  free(d->r), free(d->pr), free(d->id);
}

/* A fused add's operand r (random, packed like y: every packed byte is an element of r) and the
 * identity block; then the reference with the add. */
static int res_make(const vta_plan *p, trial_data *d, ovta_error *err) {
  d->ni = vta_res_ident_bytes(p);
  d->r = malloc(d->ny), d->pr = malloc(d->ny), d->id = malloc(d->ni ? d->ni : 1);
  if (!d->r || !d->pr || !d->id) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  fill(d->pr, d->ny, 3);
  vta_unpack_y(p, d->pr, d->r);
  vta_pack_res_ident(p, d->id);
  vta_reference_res(&p->op, d->x, d->w, d->b, d->r, d->ref);
  return OVTA_OK;
}

static int data_make(const vta_plan *p, trial_data *d, ovta_error *err) {
  const vta_op *op = &p->op;
  d->nx = vta_x_bytes(p), d->nw = vta_w_bytes(p), d->ny = vta_y_bytes(p), d->nb = vta_bias_bytes(p);
  d->x = malloc(d->nx), d->w = malloc(d->nw), d->px = malloc(d->nx), d->pw = malloc(d->nw);
  d->py = malloc(d->ny), d->y = malloc(d->ny), d->ref = malloc(d->ny);
  d->b = malloc((size_t)op->o * 4), d->pb = malloc(d->nb ? d->nb : 1);
  if (!d->x || !d->w || !d->px || !d->pw || !d->py || !d->y || !d->ref || !d->b || !d->pb)
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  fill(d->x, d->nx, 1), fill(d->w, d->nw, 2);
  for (int i = 0; i < op->o; i++) d->b[i] = i * 13 - 500;
  if (op->res) {
    int rc = res_make(p, d, err);
    if (rc) return rc;
  } else {
    vta_reference(op, d->x, d->w, d->b, d->ref);
  }
  vta_pack_x(p, d->x, d->px), vta_pack_w(p, d->w, d->pw), vta_pack_bias(p, d->b, d->pb);
  return OVTA_OK;
}

/* Run the kernel on the device; the output into d->y (unpacked). */
static int run_kernel(const vta_plan *p, vta_kernel *kern, ovta_dev *dev, trial_data *d, ovta_error *err) {
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
  ovta_rt *rt = NULL;
  int rc = ovta_buf_alloc(dev, d->nx, &bufs[VTA_BUF_X], err);
  if (!rc) rc = ovta_buf_alloc(dev, d->nw, &bufs[VTA_BUF_W], err);
  if (!rc && d->nb) rc = ovta_buf_alloc(dev, d->nb, &bufs[VTA_BUF_BIAS], err);
  if (!rc) rc = ovta_buf_alloc(dev, d->ny, &bufs[VTA_BUF_Y], err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_X], 0, d->px, d->nx, err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_W], 0, d->pw, d->nw, err);
  if (!rc && d->r) rc = ovta_buf_alloc(dev, d->ny, &bufs[VTA_BUF_R], err);
  if (!rc && d->r) rc = ovta_buf_alloc(dev, d->ni, &bufs[VTA_BUF_ID], err);
  if (!rc && d->r) rc = ovta_buf_write(bufs[VTA_BUF_R], 0, d->pr, d->ny, err);
  if (!rc && d->r) rc = ovta_buf_write(bufs[VTA_BUF_ID], 0, d->id, d->ni, err);
  if (!rc && d->nb) rc = ovta_buf_write(bufs[VTA_BUF_BIAS], 0, d->pb, d->nb, err);
  ovta_rt_opts ro = {.max_insns = 1u << 20};
  if (!rc) rc = ovta_rt_create(dev, &ro, &rt, err);
  if (!rc) rc = vta_kernel_issue(kern, rt, bufs, err);
  if (!rc) rc = ovta_rt_synchronize(rt, 0, err);
  if (!rc) rc = ovta_buf_read(bufs[VTA_BUF_Y], 0, d->py, d->ny, err);
  if (!rc) vta_unpack_y(p, d->py, d->y);
  ovta_rt_destroy(rt); /* the buffers go with the device */
  return rc;
}

int tune_measure(const tune_runner *r, const tune_trial *t, uint64_t *cycles, ovta_error *err) {
  const ovta_config *cfg = r->cfg;
  ovta_dev_opts dopt = {.watchdog_cycles = r->watchdog_cycles};
  vta_plan p;
  vta_kernel *kern = NULL;
  ovta_dev *dev = NULL;
  trial_data d = {0};
  int rc = vta_plan_make(cfg, t->op, &t->t.k, &p, err);
  if (!rc) rc = vta_compile(&p, NULL, NULL, &kern, err);
  if (!rc) rc = data_make(&p, &d, err);
  if (!rc) rc = ovta_dev_open(r->backend, cfg, &dopt, &dev, err);
  if (!rc) rc = run_kernel(&p, kern, dev, &d, err);
  size_t bad = 0;
  for (size_t i = 0; !rc && i < d.ny; i++) bad += d.y[i] != d.ref[i];
  if (!rc && bad) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "%s: %zu outputs differ from the reference", t->op->name, bad);
  if (!rc) {
    ovta_counters dc;
    ovta_dev_counters(dev, &dc);
    *cycles = dc.cycles ? dc.cycles : (uint64_t)(t->t.est + 0.5); /* fsim counts no cycles */
  }
  ovta_dev_close(dev);
  vta_kernel_free(kern);
  data_free(&d);
  return rc;
}
