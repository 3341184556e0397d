/* gen.c: the random graph of a seed (tools/ovta-randgraph/README.md, "The graphs").
 *
 * Rule: every graph is valid ONNX (opset 17) with static shapes, batch 1, one float input
 * x [1, C, H, W] (C 1..16, H, W 1..20) and one output, 1..8 operators drawn from: Conv (kernel
 * 1..5, stride 1..3, pads 0..2 per side or auto_pad, dilation 1..2, groups and depthwise, bias or
 * not, followed by a BatchNormalization sometimes), Gemm / MatMul+Add (dense after a Flatten or
 * Reshape), MaxPool / AveragePool (kernel 1..3, pads below the kernel, ceil mode,
 * count_include_pad), GlobalAveragePool, Add (residual: of two values of one shape, a branch conv
 * made when there is none), Concat on channels, Relu / LeakyRelu / Clip / Sigmoid, Flatten,
 * Reshape (4-D <-> 2-D, 4-D -> 4-D). Channels stay <= 48 (a concat <= 64), spatial <= 20, dense
 * inputs <= 2048 features. Weights are uniform in +-1/sqrt(fan_in) so values stay near 1.
 * The same seed gives the same graph (and inputs) on every machine: a splitmix64 stream, no libc
 * random, floats printed with 9 significant digits (exact round trip). */
#include "randgraph.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rg_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* uniform in lo..hi (inclusive) */
static int rint_in(uint64_t *s, int lo, int hi) { return lo + (int)(rg_next(s) % (uint64_t)(hi - lo + 1)); }
static bool chance(uint64_t *s, int pct) { return (int)(rg_next(s) % 100) < pct; }
float rg_uniform(uint64_t *s, float a) { return (float)(((double)(rg_next(s) >> 11) / 9007199254740992.0) * 2.0 - 1.0) * a; }

/* ---------------------------------------------------------------- text buffer */

typedef struct sbuf {
  char *p;       /* text */
  size_t n, cap; /* used / allocated bytes */
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + (size_t)k + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) abort(); /* a generator of small graphs: out of memory is not survivable here */
    b->p = p, b->cap = cap;
  }
  vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap2);
  va_end(ap2);
  b->n += (size_t)k;
}

/* ---------------------------------------------------------------- the graph being made */

typedef struct val {
  char name[24]; /* tensor name */
  int rank;      /* 2 or 4 */
  int c, h, w;   /* [1, c, h, w] or [1, c] (h = w = 1) */
  bool used;     /* a node consumes it */
} val;

#define MAX_VALS 64

typedef struct gen {
  uint64_t rng;        /* the seed's stream */
  sbuf tensors, nodes; /* JSON entries so far */
  int nnodes;          /* nodes written (for commas and names) */
  val v[MAX_VALS];     /* values made so far; v[0] is x */
  int nv;
  int uniq;            /* counter for names */
  rg_case *out;        /* op counts */
} gen;

static void op_count(gen *g, const char *op) {
  for (int i = 0; i < g->out->nops; i++)
    if (!strcmp(g->out->ops[i], op)) return;
  if (g->out->nops < RG_MAX_OPS) snprintf(g->out->ops[g->out->nops++], sizeof g->out->ops[0], "%s", op);
}

static const char *fresh(gen *g, const char *base, char *buf) {
  snprintf(buf, 24, "%s%d", base, g->uniq++);
  return buf;
}

/* A float constant with n values uniform in +-a (or, with pos, in [lo, lo + a]). */
static void add_const(gen *g, const char *name, int rank, const int64_t *shape, float a, float lo, bool pos) {
  int64_t n = 1;
  sb_printf(&g->tensors, ",\n    {\"name\": \"%s\", \"kind\": \"const\", \"dtype\": \"f32\", \"shape\": [", name);
  for (int d = 0; d < rank; d++) sb_printf(&g->tensors, "%s%lld", d ? ", " : "", (long long)shape[d]), n *= shape[d];
  sb_printf(&g->tensors, "], \"data\": [");
  for (int64_t i = 0; i < n; i++) {
    float x = pos ? lo + (rg_uniform(&g->rng, a) + a) / 2 : rg_uniform(&g->rng, a);
    sb_printf(&g->tensors, "%s%.9g", i ? ", " : "", (double)x);
  }
  sb_printf(&g->tensors, "]}");
}

static void add_const_i64(gen *g, const char *name, int n, const int64_t *data) {
  sb_printf(&g->tensors, ",\n    {\"name\": \"%s\", \"kind\": \"const\", \"dtype\": \"i64\", \"shape\": [%d], \"data\": [",
            name, n);
  for (int i = 0; i < n; i++) sb_printf(&g->tensors, "%s%lld", i ? ", " : "", (long long)data[i]);
  sb_printf(&g->tensors, "]}");
}

/* Starts a node: op, inputs (NULL-terminated list, "" omitted), one output; attributes follow
 * as text (attrs: the JSON members without braces, or ""). */
static void add_node(gen *g, const char *op, const char *out, const char *attrs, ...) {
  va_list ap;
  va_start(ap, attrs);
  sb_printf(&g->nodes, "%s\n    {\"name\": \"n%d_%s\", \"op\": \"%s\", \"inputs\": [", g->nnodes ? "," : "", g->nnodes + 1,
            op, op);
  g->nnodes++;
  const char *in;
  for (int i = 0; (in = va_arg(ap, const char *)); i++) {
    sb_printf(&g->nodes, "%s\"%s\"", i ? ", " : "", in);
    for (int k = 0; k < g->nv; k++) g->v[k].used |= !strcmp(g->v[k].name, in);
  }
  va_end(ap);
  sb_printf(&g->nodes, "], \"outputs\": [\"%s\"], \"attrs\": {%s}}", out, attrs);
  op_count(g, op);
}

static val *push(gen *g, const char *name, int rank, int c, int h, int w) {
  if (g->nv == MAX_VALS) return NULL;
  val *v = &g->v[g->nv++];
  snprintf(v->name, sizeof v->name, "%s", name);
  v->rank = rank, v->c = c, v->h = h, v->w = w, v->used = false;
  return v;
}

/* A value of the given rank to consume: the latest one mostly, an earlier one sometimes. */
static val *pick(gen *g, int rank) {
  int cand[MAX_VALS], n = 0;
  for (int i = 0; i < g->nv; i++)
    if (g->v[i].rank == rank) cand[n++] = i;
  if (!n) return NULL;
  if (g->v[g->nv - 1].rank == rank && chance(&g->rng, 70)) return &g->v[g->nv - 1];
  return &g->v[cand[rint_in(&g->rng, 0, n - 1)]];
}

static int divisor_upto(gen *g, int n, int cap) {
  int ds[64], k = 0;
  for (int d = 1; d <= n && d <= cap && k < 64; d++)
    if (n % d == 0) ds[k++] = d;
  return ds[rint_in(&g->rng, 0, k - 1)];
}

/* ---------------------------------------------------------------- operators */

/* One spatial dim of a conv: kernel k, pads pb/pe, dilation dl, stride st for input size n. */
typedef struct dim1 {
  int k, pb, pe, dl, st, out;
} dim1;

static dim1 conv_dim(gen *g, int n, int kmax) {
  dim1 d = {1, 0, 0, 1, 1, n};
  for (int tries = 0; tries < 20; tries++) {
    d.dl = chance(&g->rng, 6) ? 2 : 1;
    d.k = rint_in(&g->rng, 1, kmax);
    /* mostly pads below the kernel (what the accelerator takes), sometimes up to 2 whatever the kernel */
    int pmax = chance(&g->rng, 80) ? (d.k - 1 < 2 ? d.k - 1 : 2) : 2;
    d.pb = chance(&g->rng, 40) ? 0 : rint_in(&g->rng, 0, pmax);
    d.pe = chance(&g->rng, 70) ? d.pb : rint_in(&g->rng, 0, pmax);
    if (d.dl * (d.k - 1) + 1 <= n + d.pb + d.pe) break;
    d = (dim1){1, 0, 0, 1, 1, n};
  }
  d.st = chance(&g->rng, 60) ? 1 : rint_in(&g->rng, 2, 3);
  d.out = (n + d.pb + d.pe - d.dl * (d.k - 1) - 1) / d.st + 1;
  return d;
}

/* Conv of v (groups, depthwise, bias, auto_pad); a BatchNormalization after it sometimes.
 * oc: output channels (0: random). */
static val *op_conv(gen *g, val *v, int oc, bool simple) {
  char w[24], b[24], y[24], attrs[512];
  int grp = 1;
  if (!simple && !oc && chance(&g->rng, 35)) { /* grouped: depthwise (times 1..3) or G | C */
    bool dw = chance(&g->rng, 50);
    grp = dw ? v->c : divisor_upto(g, v->c, v->c);
    int mmax = 48 / grp < 1 ? 1 : 48 / grp > 8 ? 8 : 48 / grp;
    int m = dw ? (chance(&g->rng, 70) ? 1 : rint_in(&g->rng, 2, 3)) : rint_in(&g->rng, 1, mmax);
    oc = grp * m;
    if (oc > 64) oc = grp;
  }
  if (!oc) oc = rint_in(&g->rng, 1, 48);
  dim1 dh, dw;
  const char *autopad = "NOTSET";
  if (simple) {
    int k = v->h >= 3 && v->w >= 3 && chance(&g->rng, 50) ? 3 : 1;
    dh = (dim1){k, k / 2, k / 2, 1, 1, v->h};
    dw = (dim1){k, k / 2, k / 2, 1, 1, v->w};
  } else {
    dh = conv_dim(g, v->h, 5), dw = conv_dim(g, v->w, 5);
    int r = rint_in(&g->rng, 0, 99);
    if (r < 8 || (r < 12 && dh.dl * (dh.k - 1) < v->h && dw.dl * (dw.k - 1) < v->w)) {
      autopad = r < 4 ? "SAME_UPPER" : r < 8 ? "SAME_LOWER" : "VALID";
      if (r < 8) dh.out = (v->h + dh.st - 1) / dh.st, dw.out = (v->w + dw.st - 1) / dw.st;
      else dh.out = (v->h - dh.dl * (dh.k - 1) + dh.st - 1) / dh.st, dw.out = (v->w - dw.dl * (dw.k - 1) + dw.st - 1) / dw.st;
    }
  }
  int icg = v->c / grp;
  int64_t ws[4] = {oc, icg, dh.k, dw.k};
  add_const(g, fresh(g, "w", w), 4, ws, 1.0f / sqrtf((float)(icg * dh.k * dw.k)), 0, false);
  bool bias = chance(&g->rng, 70);
  if (bias) add_const(g, fresh(g, "b", b), 1, ws, 0.5f, 0, false);
  int n = snprintf(attrs, sizeof attrs, "\"kernel_shape\": [%d, %d], \"strides\": [%d, %d], \"group\": %d", dh.k, dw.k, dh.st,
                   dw.st, grp);
  if (dh.dl > 1 || dw.dl > 1) n += snprintf(attrs + n, sizeof attrs - (size_t)n, ", \"dilations\": [%d, %d]", dh.dl, dw.dl);
  if (strcmp(autopad, "NOTSET")) snprintf(attrs + n, sizeof attrs - (size_t)n, ", \"auto_pad\": \"%s\"", autopad);
  else snprintf(attrs + n, sizeof attrs - (size_t)n, ", \"pads\": [%d, %d, %d, %d]", dh.pb, dw.pb, dh.pe, dw.pe);
  add_node(g, "Conv", fresh(g, "c", y), attrs, v->name, w, bias ? b : "", (char *)NULL);
  if (!simple && chance(&g->rng, 15)) { /* conv + BatchNormalization (fold-bn) */
    char s[24], bb[24], m[24], var[24], z[24];
    int64_t cs[1] = {oc};
    add_const(g, fresh(g, "s", s), 1, cs, 0.5f, 0.5f, true);
    add_const(g, fresh(g, "bb", bb), 1, cs, 0.5f, 0, false);
    add_const(g, fresh(g, "m", m), 1, cs, 0.5f, 0, false);
    add_const(g, fresh(g, "v", var), 1, cs, 1.0f, 0.25f, true);
    add_node(g, "BatchNormalization", fresh(g, "bn", z), "\"epsilon\": {\"f\": 0.00001}", y, s, bb, m, var, (char *)NULL);
    return push(g, z, 4, oc, dh.out, dw.out);
  }
  return push(g, y, 4, oc, dh.out, dw.out);
}

static val *op_act(gen *g, val *v) {
  char y[24], lo[24], hi[24], attrs[64];
  int r = rint_in(&g->rng, 0, 99);
  fresh(g, "a", y);
  if (r < 55) add_node(g, "Relu", y, "", v->name, (char *)NULL);
  else if (r < 70) {
    snprintf(attrs, sizeof attrs, "\"alpha\": {\"f\": %.9g}", (double)(0.05f * (float)rint_in(&g->rng, 1, 6)));
    add_node(g, "LeakyRelu", y, attrs, v->name, (char *)NULL);
  } else if (r < 88) {
    char lo_t[64];
    fresh(g, "lo", lo), fresh(g, "hi", hi);
    sb_printf(&g->tensors, ",\n    {\"name\": \"%s\", \"kind\": \"const\", \"dtype\": \"f32\", \"shape\": [], \"data\": [%s]}", lo,
              chance(&g->rng, 60) ? "0" : "-0.5");
    snprintf(lo_t, sizeof lo_t, "%s", chance(&g->rng, 60) ? "6" : "1");
    sb_printf(&g->tensors, ",\n    {\"name\": \"%s\", \"kind\": \"const\", \"dtype\": \"f32\", \"shape\": [], \"data\": [%s]}", hi,
              lo_t);
    add_node(g, "Clip", y, "", v->name, lo, hi, (char *)NULL);
  } else add_node(g, "Sigmoid", y, "", v->name, (char *)NULL);
  return push(g, y, v->rank, v->c, v->h, v->w);
}

static val *op_pool(gen *g, val *v) {
  char y[24], attrs[256];
  if (chance(&g->rng, 15)) {
    add_node(g, "GlobalAveragePool", fresh(g, "gp", y), "", v->name, (char *)NULL);
    return push(g, y, 4, v->c, 1, 1);
  }
  bool mx = chance(&g->rng, 60);
  int k[2], p[4], s[2], n[2] = {v->h, v->w}, out[2];
  bool ceil_mode = chance(&g->rng, 20);
  for (int d = 0; d < 2; d++) {
    k[d] = rint_in(&g->rng, 1, n[d] < 3 ? n[d] : 3);
    p[d] = k[d] > 1 && chance(&g->rng, 40) ? rint_in(&g->rng, 0, k[d] - 1) : 0;
    p[d + 2] = k[d] > 1 && chance(&g->rng, 40) ? rint_in(&g->rng, 0, k[d] - 1) : p[d];
    s[d] = chance(&g->rng, 30) ? 1 : rint_in(&g->rng, 2, 3);
    int span = n[d] + p[d] + p[d + 2] - k[d];
    out[d] = (ceil_mode ? (span + s[d] - 1) / s[d] : span / s[d]) + 1;
    /* ONNX (and onnxruntime): with ceil_mode a last window starting in the end padding is dropped */
    if (ceil_mode && (out[d] - 1) * s[d] >= n[d] + p[d]) out[d]--;
  }
  int m = snprintf(attrs, sizeof attrs, "\"kernel_shape\": [%d, %d], \"strides\": [%d, %d], \"pads\": [%d, %d, %d, %d]", k[0], k[1],
                   s[0], s[1], p[0], p[1], p[2], p[3]);
  if (ceil_mode) m += snprintf(attrs + m, sizeof attrs - (size_t)m, ", \"ceil_mode\": 1");
  if (!mx && chance(&g->rng, 40)) snprintf(attrs + m, sizeof attrs - (size_t)m, ", \"count_include_pad\": 1");
  add_node(g, mx ? "MaxPool" : "AveragePool", fresh(g, "p", y), attrs, v->name, (char *)NULL);
  return push(g, y, 4, v->c, out[0], out[1]);
}

/* A value with v's shape other than v, or NULL. */
static val *same_shape(gen *g, val *v, bool channels_only) {
  int cand[MAX_VALS], n = 0;
  for (int i = 0; i < g->nv; i++) {
    val *u = &g->v[i];
    if (u == v || u->rank != v->rank || u->h != v->h || u->w != v->w) continue;
    if (!channels_only && u->c != v->c) continue;
    if (channels_only && u->c + v->c > 64) continue;
    cand[n++] = i;
  }
  return n ? &g->v[cand[rint_in(&g->rng, 0, n - 1)]] : NULL;
}

static val *op_dense(gen *g, val *v, int oc);

static val *op_add(gen *g, val *v) {
  char y[24];
  val *u = same_shape(g, v, false);
  if (!u) u = v->rank == 4 ? op_conv(g, v, v->c, true) : op_dense(g, v, v->c);
  if (!u) return NULL;
  add_node(g, "Add", fresh(g, "s", y), "", v->name, u->name, (char *)NULL);
  return push(g, y, v->rank, v->c, v->h, v->w);
}

static val *op_concat(gen *g, val *v) {
  char y[24];
  val *u = same_shape(g, v, true);
  if (!u) {
    if (v->c >= 64) return NULL;
    u = op_conv(g, v, rint_in(&g->rng, 1, 64 - v->c < 32 ? 64 - v->c : 32), true);
  }
  if (!u) return NULL;
  bool first = chance(&g->rng, 50);
  int c = v->c + u->c;
  add_node(g, "Concat", fresh(g, "cc", y), "\"axis\": 1", first ? v->name : u->name, first ? u->name : v->name, (char *)NULL);
  return push(g, y, 4, c, v->h, v->w);
}

/* 4-D -> 2-D (Flatten or Reshape [1, -1]), 2-D -> 4-D, or 4-D -> 4-D. */
static val *op_reshape(gen *g, val *v) {
  char y[24], sh[24];
  int f = v->c * v->h * v->w;
  if (v->rank == 4 && (chance(&g->rng, 60) || f > 48 * 20 * 20 / 4)) {
    if (f > 2048) return NULL;
    if (chance(&g->rng, 50)) add_node(g, "Flatten", fresh(g, "f", y), "\"axis\": 1", v->name, (char *)NULL);
    else {
      int64_t s[2] = {1, -1};
      add_const_i64(g, fresh(g, "shape", sh), 2, s);
      add_node(g, "Reshape", fresh(g, "r", y), "", v->name, sh, (char *)NULL);
    }
    return push(g, y, 2, f, 1, 1);
  }
  int c = divisor_upto(g, f, 48), rest = f / c, h = divisor_upto(g, rest, 20), w = rest / h;
  if (w > 20) return NULL;
  int64_t s[4] = {1, c, h, w};
  add_const_i64(g, fresh(g, "shape", sh), 4, s);
  add_node(g, "Reshape", fresh(g, "r", y), "", v->name, sh, (char *)NULL);
  return push(g, y, 4, c, h, w);
}

static val *op_dense(gen *g, val *v, int oc) {
  char w[24], b[24], y[24], t[24];
  if (!oc) oc = rint_in(&g->rng, 1, 48);
  int f = v->c;
  bool gemm = chance(&g->rng, 60), bias = !gemm || chance(&g->rng, 70);
  int64_t ws[2] = {gemm ? oc : f, gemm ? f : oc}, bs[1] = {oc};
  add_const(g, fresh(g, "w", w), 2, ws, 1.0f / sqrtf((float)f), 0, false);
  if (bias) add_const(g, fresh(g, "b", b), 1, bs, 0.5f, 0, false);
  if (gemm) add_node(g, "Gemm", fresh(g, "d", y), "\"transB\": 1", v->name, w, bias ? b : "", (char *)NULL);
  else {
    add_node(g, "MatMul", fresh(g, "mm", t), "", v->name, w, (char *)NULL);
    add_node(g, "Add", fresh(g, "d", y), "", t, b, (char *)NULL);
  }
  return push(g, y, 2, oc, 1, 1);
}

/* One random operator on the values so far; NULL when the draw did not fit (try another). */
static val *one_op(gen *g) {
  int r = rint_in(&g->rng, 0, 99);
  val *v4 = pick(g, 4), *v2 = pick(g, 2);
  if (r < 34) return v4 ? op_conv(g, v4, 0, false) : NULL;
  if (r < 48) return v4 || v2 ? op_act(g, v4 && (!v2 || chance(&g->rng, 70)) ? v4 : v2) : NULL;
  if (r < 60) return v4 ? op_pool(g, v4) : NULL;
  if (r < 70) return v4 || v2 ? op_add(g, v4 && (!v2 || chance(&g->rng, 70)) ? v4 : v2) : NULL;
  if (r < 78) return v4 ? op_concat(g, v4) : NULL;
  if (r < 88) return v2 ? op_dense(g, v2, 0) : v4 ? op_reshape(g, v4) : NULL;
  return v4 ? op_reshape(g, v4) : v2 && v2->c <= 2048 ? op_reshape(g, v2) : NULL;
}

int rg_generate(uint64_t seed, rg_case *out) {
  memset(out, 0, sizeof *out);
  gen g = {.rng = seed * 0x2545f4914f6cdd1dull + 1, .out = out};
  int c = rint_in(&g.rng, 1, 16), h = rint_in(&g.rng, 1, 20), w = chance(&g.rng, 70) ? h : rint_in(&g.rng, 1, 20);
  push(&g, "x", 4, c, h, w);
  out->x_shape[0] = 1, out->x_shape[1] = c, out->x_shape[2] = h, out->x_shape[3] = w;
  int depth = rint_in(&g.rng, 1, 8);
  for (int tries = 0; out->depth < depth && tries < 100 && g.nv < MAX_VALS - 4; tries++)
    if (one_op(&g)) out->depth++;
  /* outputs: the last value, then up to 3 other values no node consumes (so no branch is dead) */
  val *y = &g.v[g.nv - 1];
  sbuf j = {0};
  sb_printf(&j, "{\n  \"name\": \"randgraph_%llu\", \"opset\": 17,\n  \"inputs\": [\"x\"], \"outputs\": [\"%s\"",
            (unsigned long long)seed, y->name);
  out->noutputs = 1;
  for (int i = g.nv - 2; i >= 1 && out->noutputs < 4; i--)
    if (!g.v[i].used) sb_printf(&j, ", \"%s\"", g.v[i].name), out->noutputs++;
  sb_printf(&j, "],\n");
  sb_printf(&j, "  \"tensors\": [\n    {\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, %d, %d, %d]}%s%s\n  ],\n", c, h, w,
            "", g.tensors.p ? g.tensors.p : "");
  sb_printf(&j, "  \"nodes\": [%s\n  ]\n}\n", g.nodes.p ? g.nodes.p : "");
  free(g.tensors.p), free(g.nodes.p);
  out->json = j.p;
  out->nodes = g.nnodes;
  out->rng = g.rng;
  return 0;
}
