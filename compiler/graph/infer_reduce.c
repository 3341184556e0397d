/* infer_reduce.c: inference of the reductions (Reduce*, ArgMax/ArgMin), CumSum, TopK and
 * Einsum. The ONNX rule of each operator stands above its function; infer.c says what
 * inference guarantees. */

#include "infer_internal.h"

/* The element types the reductions accept. */
static bool red_dtype(ovta_dtype t) {
  return t == OVTA_DT_F32 || t == OVTA_DT_F64 || t == OVTA_DT_I32 || t == OVTA_DT_I64 || t == OVTA_DT_U8 ||
         t == OVTA_DT_I8 || t == OVTA_DT_U32 || t == OVTA_DT_U64;
}

/* The reduced axes of a Reduce* node over input x of rank r: mask[d] for every reduced d.
 * Axes come from the `axes` attribute (ReduceSum < 13, the others < 18) or input 1 (a constant
 * int64 1-D tensor). No axes (absent or empty): every axis, or none when noop_with_empty_axes = 1.
 * *runtime: input 1 is not a constant (its count is known, its values only at run time). */
static int reduce_axes(ctx *c, const ovta_tensor *x, bool *mask, bool *runtime) {
  int64_t ax[OVTA_MAX_RANK + 1];
  int n = -1, r = x->rank;
  *runtime = false;
  const ovta_attr *a = ovta_node_attr(c->n, "axes");
  ovta_tensor *ai = ix_in(c, 1);
  if (a && ai) return ix_bad(c, OVTA_EINVAL, "axes given both as attribute and as input");
  if (a) {
    if (a->type != OVTA_ATTR_INTS) return ix_bad(c, OVTA_EINVAL, "attribute 'axes' must be a list of ints");
    if (a->n > r) return ix_bad(c, OVTA_EINVAL, "%d axes for rank %d", a->n, r);
    n = a->n;
    for (int i = 0; i < n; i++) ax[i] = a->ints[i];
  } else if (ai && !ai->data) {
    if (ai->dtype != OVTA_DT_I64 || ai->rank != 1 || ai->shape[0] < 0 || ai->shape[0] > r)
      return ix_bad(c, OVTA_EINVAL, "input 'axes' must be a 1-D int64 tensor of at most %d values", r);
    n = (int)ai->shape[0];
    if (n > 0) {
      *runtime = true;
      for (int d = 0; d < r; d++) mask[d] = false;
      return OVTA_OK;
    }
  } else if (ix_const_ints(c, 1, ax, OVTA_MAX_RANK + 1, &n)) {
    return c->err->code;
  }
  int64_t noop = ovta_node_attr_i(c->n, "noop_with_empty_axes", 0);
  if (noop != 0 && noop != 1) return ix_bad(c, OVTA_EINVAL, "noop_with_empty_axes must be 0 or 1");
  for (int d = 0; d < r; d++) mask[d] = n <= 0 && !noop;
  for (int i = 0; i < n; i++) {
    if (ix_norm_axis(c, &ax[i], r, false, "axis")) return c->err->code;
    if (mask[ax[i]]) return ix_bad(c, OVTA_EINVAL, "axis %lld appears twice", (long long)ax[i]);
    mask[ax[i]] = true;
  }
  return OVTA_OK;
}

/* ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare (1..18): data X, optional axes
 * (attribute, or input 1 for ReduceSum >= 13 and the others >= 18); keepdims (default 1) keeps
 * the reduced axes as 1s, else removes them; noop_with_empty_axes (default 0): with no axes,
 * reduce nothing (1) or everything (0). Y has X's type. Reducing an axis of extent 0 gives the
 * operation's identity (0, 1 for Prod, -inf/+inf for Max/Min, -inf for LogSum/LogSumExp).
 * Axes that are graph inputs (not constants): Y takes the declared output shape, which must
 * have the element count of some reduction of X (checked at run time against the axes). */
static int infer_reduce(ctx *c) {
  ovta_tensor *x;
  bool mask[OVTA_MAX_RANK], rt;
  if (ix_allow(c, "axes,keepdims,noop_with_empty_axes") || ix_attr_type(c, "keepdims", OVTA_ATTR_INT) ||
      ix_count_io(c, 1, 2, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  const char *op = c->n->op;
  if (!red_dtype(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input type %s is not supported", ovta_dtype_name(x->dtype));
  bool fonly = !strcmp(op, "ReduceLogSum") || !strcmp(op, "ReduceLogSumExp") || !strcmp(op, "ReduceL2");
  if (fonly && !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EUNSUPPORTED, "integer input");
  if (reduce_axes(c, x, mask, &rt)) return c->err->code;
  int64_t keep = ovta_node_attr_i(c->n, "keepdims", 1);
  if (keep != 0 && keep != 1) return ix_bad(c, OVTA_EINVAL, "keepdims must be 0 or 1");
  if (rt) {
    ovta_tensor *y = c->n->outputs[0];
    bool known = y->rank >= 0 && (!keep || y->rank == x->rank) && y->rank <= x->rank;
    for (int d = 0; known && d < y->rank; d++) known = y->shape[d] >= 0;
    if (!known)
      return ix_bad(c, OVTA_EUNSUPPORTED, "axes input '%s' is not a constant and the output has no usable declared shape",
                    ix_in(c, 1)->name);
    return ix_set_out(c, 0, x->dtype, y->rank, y->shape);
  }
  int64_t s[OVTA_MAX_RANK];
  int k = 0;
  for (int d = 0; d < x->rank; d++)
    if (!mask[d]) s[k++] = x->shape[d];
    else if (keep) s[k++] = 1;
  return ix_set_out(c, 0, x->dtype, k, s);
}

/* ArgMax, ArgMin (1..13): axis (default 0) in [-r, r-1], keepdims (1), select_last_index (0: the
 * first index of the extreme value, 1: the last). Y: int64, X's shape with the axis 1 or removed;
 * the axis must not be empty. */
static int infer_argmax(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axis,keepdims,select_last_index") || ix_attr_type(c, "axis", OVTA_ATTR_INT) ||
      ix_attr_type(c, "keepdims", OVTA_ATTR_INT) || ix_attr_type(c, "select_last_index", OVTA_ATTR_INT) ||
      ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  if (!red_dtype(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input type %s is not supported", ovta_dtype_name(x->dtype));
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0), keep = ovta_node_attr_i(c->n, "keepdims", 1);
  int64_t last = ovta_node_attr_i(c->n, "select_last_index", 0);
  if ((keep != 0 && keep != 1) || (last != 0 && last != 1))
    return ix_bad(c, OVTA_EINVAL, "keepdims and select_last_index must be 0 or 1");
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  if (x->shape[axis] == 0) return ix_bad(c, OVTA_EINVAL, "axis %lld is empty", (long long)axis);
  int64_t s[OVTA_MAX_RANK];
  int k = 0;
  for (int d = 0; d < x->rank; d++)
    if (d != axis) s[k++] = x->shape[d];
    else if (keep) s[k++] = 1;
  return ix_set_out(c, 0, OVTA_DT_I64, k, s);
}

/* CumSum (11, 14): x, axis (a 0-D or 1-element int32/int64 tensor in [-r, r-1]); exclusive (0:
 * y[i] includes x[i]; 1: it does not), reverse (0: sums from the start; 1: from the end).
 * Y has X's type and shape. An axis that is not a constant is read at run time. */
static int infer_cumsum(ctx *c) {
  ovta_tensor *x, *a;
  if (ix_allow(c, "exclusive,reverse") || ix_attr_type(c, "exclusive", OVTA_ATTR_INT) ||
      ix_attr_type(c, "reverse", OVTA_ATTR_INT) || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &a))
    return c->err->code;
  if (!red_dtype(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input type %s is not supported", ovta_dtype_name(x->dtype));
  if ((a->dtype != OVTA_DT_I32 && a->dtype != OVTA_DT_I64) || ovta_tensor_numel(a) != 1 || a->rank > 1)
    return ix_bad(c, OVTA_EINVAL, "axis must be one int32/int64 value");
  if (x->rank < 1) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 1");
  if (a->data) {
    int64_t axis = ovta_tensor_get_i(a, 0);
    if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  }
  return ix_same_as(c, 0, x);
}

/* TopK (10, 11): X, K (1-element int64 tensor, 0 <= K <= X.shape[axis]); axis (-1), largest (1:
 * the K largest; 0: the K smallest), sorted (1; 0 also gives them sorted). Values: X's type,
 * Indices: int64, both X's shape with shape[axis] = K. Equal values: the lower index first.
 * A K that is not a constant: the outputs take their declared shapes (the kernel reads K from
 * the output shape). */
static int infer_topk(ctx *c) {
  ovta_tensor *x, *kt;
  if (ix_allow(c, "axis,largest,sorted") || ix_attr_type(c, "axis", OVTA_ATTR_INT) ||
      ix_attr_type(c, "largest", OVTA_ATTR_INT) || ix_attr_type(c, "sorted", OVTA_ATTR_INT) || ix_count_io(c, 2, 2, 2, 2) ||
      ix_need(c, 0, &x) || ix_need(c, 1, &kt))
    return c->err->code;
  if (!red_dtype(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input type %s is not supported", ovta_dtype_name(x->dtype));
  int64_t axis = ovta_node_attr_i(c->n, "axis", -1);
  if (x->rank < 1) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 1");
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  if (kt->dtype != OVTA_DT_I64 || ovta_tensor_numel(kt) != 1 || kt->rank > 1)
    return ix_bad(c, OVTA_EINVAL, "K must be one int64 value");
  int64_t k;
  if (kt->data) {
    k = ovta_tensor_get_i(kt, 0);
  } else {
    const ovta_tensor *v = c->n->outputs[0];
    if (v->rank != x->rank || v->shape[axis] < 0)
      return ix_bad(c, OVTA_EUNSUPPORTED, "K '%s' is not a constant and the outputs have no declared shape", kt->name);
    k = v->shape[axis];
  }
  if (k < 0 || (x->shape[axis] >= 0 && k > x->shape[axis]))
    return ix_bad(c, OVTA_EINVAL, "K = %lld is out of range for axis extent %lld", (long long)k, (long long)x->shape[axis]);
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof s);
  s[axis] = k;
  if (ix_set_out(c, 0, x->dtype, x->rank, s) || ix_set_out(c, 1, OVTA_DT_I64, x->rank, s)) return c->err->code;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- Einsum */

/* graph.h: per operand its labels (one per dim; the dims of "..." as digits '0'..), the
 * output's, or -1 and msg. */
int ovta_einsum_parse(const char *eq, int nops, const int *ranks, char labels[][OVTA_MAX_RANK + 1], char *out,
                      char *msg, size_t mn) {
  char term[4][64];
  int nt = 0, len = 0;
  const char *arrow = strstr(eq, "->");
  /* operands */
  const char *p = eq;
  for (;; p++) {
    if (*p == ',' || *p == 0 || (p == arrow)) {
      if (nt >= 3) return snprintf(msg, mn, "too many operands"), -1;
      term[nt][len] = 0;
      nt++;
      len = 0;
      if (*p != ',') break;
      continue;
    }
    if (*p == ' ') continue;
    if (len >= 60) return snprintf(msg, mn, "term too long"), -1;
    term[nt][len++] = *p;
  }
  if (nt != nops) return snprintf(msg, mn, "%d operands in the equation, %d inputs", nt, nops), -1;
  int ell = -1; /* dims the ellipsis covers */
  for (int i = 0; i < nt; i++) {
    const char *t = term[i], *e = strstr(t, "...");
    int letters = 0, dots = 0;
    for (const char *q = t; *q; q++)
      if (*q >= 'a' && *q <= 'z') letters++;
      else if (*q >= 'A' && *q <= 'Z') letters++;
      else if (*q == '.') dots++;
      else return snprintf(msg, mn, "unexpected '%c'", *q), -1;
    if (dots != (e ? 3 : 0)) return snprintf(msg, mn, "operand %d: '.' other than one \"...\"", i), -1;
    int k = 0;
    if (e) {
      int cover = ranks[i] - letters;
      if (cover < 0) return snprintf(msg, mn, "operand %d has rank %d < %d letters", i, ranks[i], letters), -1;
      if (ell >= 0 && ell != cover) return snprintf(msg, mn, "ellipses of different ranks are not supported"), -1;
      ell = cover;
      for (const char *q = t; *q;) {
        if (q == e) {
          for (int j = 0; j < cover; j++) labels[i][k++] = (char)('0' + j); /* ellipsis dims as digits */
          q += 3;
        } else {
          labels[i][k++] = *q++;
        }
      }
    } else {
      if (letters != ranks[i]) return snprintf(msg, mn, "operand %d has rank %d, %d letters", i, ranks[i], letters), -1;
      for (const char *q = t; *q; q++) labels[i][k++] = *q;
    }
    labels[i][k] = 0;
  }
  int k = 0;
  if (arrow) {
    for (const char *q = arrow + 2; *q; q++) {
      if (*q == ' ') continue;
      if (*q == '.') {
        if (strncmp(q, "...", 3)) return snprintf(msg, mn, "a lone '.'"), -1;
        for (int j = 0; j < (ell > 0 ? ell : 0); j++) {
          if (k >= OVTA_MAX_RANK) return snprintf(msg, mn, "output rank above %d", OVTA_MAX_RANK), -1;
          out[k++] = (char)('0' + j);
        }
        q += 2;
      } else if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
        for (int j = 0; j < k; j++)
          if (out[j] == *q) return snprintf(msg, mn, "output letter '%c' twice", *q), -1;
        bool found = false;
        for (int i = 0; i < nt; i++) found |= strchr(labels[i], *q) != NULL;
        if (!found) return snprintf(msg, mn, "output letter '%c' not in an input", *q), -1;
        if (k >= OVTA_MAX_RANK) return snprintf(msg, mn, "output rank above %d", OVTA_MAX_RANK), -1;
        out[k++] = *q;
      } else {
        return snprintf(msg, mn, "unexpected '%c' in the output", *q), -1;
      }
      out[k] = 0;
    }
  } else {
    /* implicit: the ellipsis dims, then the letters appearing once, in alphabetical order */
    for (int j = 0; j < (ell > 0 ? ell : 0); j++) out[k++] = (char)('0' + j);
    for (int ch = 'A'; ch <= 'z'; ch++) {
      int cnt = 0;
      for (int i = 0; i < nt; i++)
        for (const char *q = labels[i]; *q; q++) cnt += *q == ch;
      if (cnt == 1 && k >= OVTA_MAX_RANK) return snprintf(msg, mn, "output rank above %d", OVTA_MAX_RANK), -1;
      if (cnt == 1) out[k++] = (char)ch;
    }
  }
  out[k] = 0;
  return 0;
}

/* Einsum (12): inputs, equation "t1,t2->out" (letters name dims; "..." broadcast dims; no "->":
 * the letters used once, alphabetically). Every dim of one letter has one extent; the output
 * has the letters' extents; letters not in the output are summed over (products of the
 * operands' elements). Here: 1 or 2 operands, no broadcasting of extent-1 dims, numeric types. */
static int infer_einsum(ctx *c) {
  ovta_tensor *x[2];
  if (ix_allow(c, "equation") || ix_count_io(c, 1, 16, 1, 1)) return c->err->code;
  const char *eq = ovta_node_attr_s(c->n, "equation", NULL);
  if (!eq) return ix_bad(c, OVTA_EINVAL, "attribute 'equation' is required");
  int nops = 0;
  while (nops < c->n->n_inputs && c->n->inputs[nops]) nops++;
  if (nops > 2) return ix_bad(c, OVTA_EUNSUPPORTED, "equation \"%s\": %d operands (1 or 2 are supported)", eq, nops);
  int ranks[2];
  for (int i = 0; i < nops; i++) {
    if (ix_need(c, i, &x[i])) return c->err->code;
    if (!red_dtype(x[i]->dtype) || x[i]->dtype != x[0]->dtype)
      return ix_bad(c, OVTA_EINVAL, "inputs must be of one numeric type");
    ranks[i] = x[i]->rank;
  }
  char labels[3][OVTA_MAX_RANK + 1], out[OVTA_MAX_RANK + 1] = {0}, msg[128];
  if (ovta_einsum_parse(eq, nops, ranks, labels, out, msg, sizeof msg))
    return ix_bad(c, OVTA_EUNSUPPORTED, "equation \"%s\": %s", eq, msg);
  int64_t ext[128];
  for (int i = 0; i < 128; i++) ext[i] = -1;
  for (int i = 0; i < nops; i++)
    for (int d = 0; labels[i][d]; d++) {
      int ch = (unsigned char)labels[i][d];
      if (ext[ch] >= 0 && ext[ch] != x[i]->shape[d])
        return ix_bad(c, OVTA_EUNSUPPORTED, "equation \"%s\": '%c' has extents %lld and %lld", eq, ch, (long long)ext[ch],
                      (long long)x[i]->shape[d]);
      ext[ch] = x[i]->shape[d];
    }
  int64_t s[OVTA_MAX_RANK];
  int r = (int)strlen(out);
  for (int d = 0; d < r; d++) s[d] = ext[(unsigned char)out[d]];
  return ix_set_out(c, 0, x[0]->dtype, r, s);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_reduce[] = {
    {"ReduceSum", infer_reduce},
    {"ReduceMean", infer_reduce},
    {"ReduceMax", infer_reduce},
    {"ReduceMin", infer_reduce},
    {"ReduceProd", infer_reduce},
    {"ReduceL1", infer_reduce},
    {"ReduceL2", infer_reduce},
    {"ReduceLogSum", infer_reduce},
    {"ReduceLogSumExp", infer_reduce},
    {"ReduceSumSquare", infer_reduce},
    {"ArgMax", infer_argmax},
    {"ArgMin", infer_argmax},
    {"CumSum", infer_cumsum},
    {"TopK", infer_topk},
    {"Einsum", infer_einsum},
    {NULL, NULL},
};
