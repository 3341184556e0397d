/* Loop IR + LLVM backend tests: functions built by hand (matmul, conv, integer ops, allocations,
 * intrinsics), compiled with O3 and run through the JIT, compared with plain C references
 * computed here directly. Also the verifier's errors, the object-file path and the queries. */
#include "ovta_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"

/* Compile one function and return its entry point (the JIT is returned for freeing). */
static lir_kernel_fn build(lir_func *f, lir_jit **jit) {
  ovta_error err = {0};
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("t", NULL, &m, &err), err);
  OVTA_ASSERT_OK(lir_module_add(m, f, &err), err);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  OVTA_ASSERT_OK(lir_jit_new(jit, &err), err);
  OVTA_ASSERT_OK(lir_jit_add_module(*jit, m, &err), err);
  lir_module_free(m);
  void *fn;
  OVTA_ASSERT_OK(lir_jit_lookup(*jit, f->name, &fn, &err), err);
  return (lir_kernel_fn)fn;
}

/* C[M,N] = sum_k A[M,K] * B[K,N] */
static lir_func *matmul_func(int M, int N, int K) {
  lir_func *f = lir_func_new("matmul");
  lir_buf *A = lir_param(f, "A", LIR_F32, 2, (int64_t[]){M, K});
  lir_buf *B = lir_param(f, "B", LIR_F32, 2, (int64_t[]){K, N});
  lir_buf *C = lir_param(f, "C", LIR_F32, 2, (int64_t[]){M, N});
  lir_var *i = lir_var_new(f, "i", LIR_I64), *j = lir_var_new(f, "j", LIR_I64), *k = lir_var_new(f, "k", LIR_I64);
  lir_expr *ij[2] = {lir_ref(f, i), lir_ref(f, j)};
  lir_expr *ik[2] = {lir_ref(f, i), lir_ref(f, k)};
  lir_expr *kj[2] = {lir_ref(f, k), lir_ref(f, j)};
  lir_stmt *init = lir_store(f, C, ij, lir_f32(f, 0));
  lir_stmt *upd = lir_store(f, C, ij, lir_add(f, lir_load(f, C, ij), lir_mul(f, lir_load(f, A, ik), lir_load(f, B, kj))));
  lir_stmt *kl = lir_for(f, k, lir_i64(f, 0), lir_i64(f, K), LIR_FOR_SERIAL, upd);
  lir_stmt *s2[2] = {init, kl};
  lir_stmt *jl = lir_for(f, j, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_SERIAL, lir_seq(f, 2, s2));
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, M), LIR_FOR_SERIAL, jl);
  return f;
}

/* The JIT's "matmul" (matmul_func's M x K times K x N) against the same sum in plain C. */
static void check_matmul(lir_jit *jit, int M, int N, int K) {
  ovta_error err = {0};
  void *fp;
  OVTA_ASSERT_OK(lir_jit_lookup(jit, "matmul", &fp, &err), err);
  float A[M * K], B[K * N], C[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)i;
  for (int i = 0; i < K * N; i++) B[i] = (float)(i % 3);
  ((lir_kernel_fn)fp)((void *[]){A, B, C});
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float r = 0;
      for (int k = 0; k < K; k++) r += A[i * K + k] * B[k * N + j];
      assert_float_equal(C[i * N + j], r, 1e-4);
    }
}


static void test_matmul(void **state) {
  (void)state;
  enum { M = 13, N = 37, K = 29 };
  lir_func *f = matmul_func(M, N, K);
  ovta_error err = {0};
  OVTA_ASSERT_OK(lir_verify(f, true, &err), err);
  lir_jit *jit;
  lir_kernel_fn fn = build(f, &jit);
  float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 13) * 0.25f;
  void *args[3] = {A, B, C};
  fn(args);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float r = 0;
      for (int k = 0; k < K; k++) r += A[i * K + k] * B[k * N + j];
      assert_float_equal(C[i * N + j], r, 1e-4);
    }
  free(A), free(B), free(C);
  lir_jit_free(jit);
  lir_func_free(f);
}

/* Conv2d NCHW, pad 1, stride 2, via a select on the padded index. */
static void test_conv(void **state) {
  (void)state;
  enum { C = 3, H = 9, W = 8, O = 4, KH = 3, KW = 3, S = 2, P = 1 };
  const int OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
  lir_func *f = lir_func_new("conv");
  lir_buf *X = lir_param(f, "X", LIR_F32, 3, (int64_t[]){C, H, W});
  lir_buf *Wt = lir_param(f, "W", LIR_F32, 4, (int64_t[]){O, C, KH, KW});
  lir_buf *Y = lir_param(f, "Y", LIR_F32, 3, (int64_t[]){O, OH, OW});
  lir_nest out;
  lir_nest_open(f, &out, 3, (int64_t[]){O, OH, OW}, "o");
  lir_buf *acc = lir_buf_new(f, "acc", LIR_F32, 1, (int64_t[]){1}, LIR_SCOPE_LOCAL);
  lir_nest red;
  lir_nest_open(f, &red, 3, (int64_t[]){C, KH, KW}, "r");
  lir_expr *z = lir_i64(f, 0);
  lir_expr *ih = lir_addi(f, lir_muli(f, out.idx[1], S), -P);
  ih = lir_add(f, ih, red.idx[1]);
  lir_expr *iw = lir_add(f, lir_addi(f, lir_muli(f, out.idx[2], S), -P), red.idx[2]);
  lir_expr *inb = lir_bin(f, LIR_AND, lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, ih, z), lir_bin(f, LIR_LT, ih, lir_i64(f, H))),
                          lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, iw, z), lir_bin(f, LIR_LT, iw, lir_i64(f, W))));
  lir_expr *xi[3] = {red.idx[0], lir_max(f, lir_min(f, ih, lir_i64(f, H - 1)), z), lir_max(f, lir_min(f, iw, lir_i64(f, W - 1)), z)};
  lir_expr *wi[4] = {out.idx[0], red.idx[0], red.idx[1], red.idx[2]};
  lir_expr *xe = lir_select(f, inb, lir_load(f, X, xi), lir_f32(f, 0));
  lir_stmt *upd = lir_store1(f, acc, z, lir_add(f, lir_load1(f, acc, z), lir_mul(f, xe, lir_load(f, Wt, wi))));
  lir_block b;
  lir_block_init(&b, f);
  lir_block_add(&b, lir_store1(f, acc, z, lir_f32(f, 0)));
  lir_block_add(&b, lir_nest_close(f, &red, upd, LIR_FOR_SERIAL));
  lir_block_add(&b, lir_store(f, Y, out.idx, lir_load1(f, acc, z)));
  f->body = lir_nest_close(f, &out, lir_alloc_stmt(f, acc, lir_block_stmt(&b)), LIR_FOR_SERIAL);
  ovta_error err = {0};
  OVTA_ASSERT_OK(lir_verify(f, true, &err), err);
  lir_jit *jit;
  lir_kernel_fn fn = build(f, &jit);
  float x[C * H * W], w[O * C * KH * KW], y[4 * 5 * 4];
  assert_int_equal(O * OH * OW, 4 * 5 * 4);
  for (int i = 0; i < C * H * W; i++) x[i] = sinf((float)i);
  for (int i = 0; i < O * C * KH * KW; i++) w[i] = cosf((float)i * 0.7f);
  void *args[3] = {x, w, y};
  fn(args);
  for (int o = 0; o < O; o++)
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        float r = 0;
        for (int c = 0; c < C; c++)
          for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
              int hh = oh * S - P + kh, ww = ow * S - P + kw;
              if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
              r += x[(c * H + hh) * W + ww] * w[((o * C + c) * KH + kh) * KW + kw];
            }
        assert_float_equal(y[(o * OH + oh) * OW + ow], r, 1e-4);
      }
  lir_jit_free(jit);
  lir_func_free(f);
}

/* Integer semantics: floordiv/floormod, shifts, casts, min/max, select, unsigned compares. */
static void test_int_ops(void **state) {
  (void)state;
  enum { N = 64 };
  lir_func *f = lir_func_new("intops");
  lir_buf *A = lir_param(f, "A", LIR_I32, 1, (int64_t[]){N});
  lir_buf *B = lir_param(f, "B", LIR_I32, 1, (int64_t[]){N});
  lir_buf *O = lir_param(f, "O", LIR_I32, 2, (int64_t[]){8, N});
  lir_buf *U = lir_param(f, "U", LIR_U8, 1, (int64_t[]){N});
  lir_var *i = lir_var_new(f, "i", LIR_I64);
  lir_expr *ii = lir_ref(f, i);
  lir_expr *a = lir_load1(f, A, ii), *b = lir_load1(f, B, ii);
  lir_block blk;
  lir_block_init(&blk, f);
  const lir_binop ops[6] = {LIR_FLOORDIV, LIR_FLOORMOD, LIR_DIV, LIR_MOD, LIR_MIN, LIR_MAX};
  for (int k = 0; k < 6; k++) lir_block_add(&blk, lir_store(f, O, (lir_expr *[]){lir_i64(f, k), ii}, lir_bin(f, ops[k], a, b)));
  lir_block_add(&blk, lir_store(f, O, (lir_expr *[]){lir_i64(f, 6), ii},
                                lir_bin(f, LIR_SHR, lir_bin(f, LIR_SHL, a, lir_int(f, LIR_I32, 3)), lir_int(f, LIR_I32, 5))));
  lir_block_add(&blk, lir_store(f, O, (lir_expr *[]){lir_i64(f, 7), ii},
                                lir_select(f, lir_bin(f, LIR_GT, lir_cast(f, LIR_U8, a), lir_int(f, LIR_U8, 200)),
                                           lir_cast(f, LIR_I32, lir_cast(f, LIR_I8, a)), lir_int(f, LIR_I32, -1))));
  /* saturating float -> u8 conversion through clamp then cast */
  lir_expr *fa = lir_cast(f, LIR_F32, a);
  lir_expr *cl = lir_min(f, lir_max(f, lir_call1(f, LIR_ROUND_EVEN, lir_bin(f, LIR_DIV, fa, lir_f32(f, 2))), lir_f32(f, 0)), lir_f32(f, 255));
  lir_block_add(&blk, lir_store1(f, U, ii, lir_cast(f, LIR_U8, cl)));
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_VECTORIZED, lir_block_stmt(&blk));
  lir_jit *jit;
  lir_kernel_fn fn = build(f, &jit);
  int32_t av[N], bv[N], o[8 * N];
  uint8_t u[N];
  for (int k = 0; k < N; k++) {
    av[k] = (k * 37) % 601 - 300;
    bv[k] = ((k * 13) % 17 - 8) ? ((k * 13) % 17 - 8) : 3;
  }
  void *args[4] = {av, bv, o, u};
  fn(args);
  for (int k = 0; k < N; k++) {
    int x = av[k], y = bv[k];
    int fd = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
    int fm = x - fd * y;
    assert_int_equal(o[0 * N + k], fd);
    assert_int_equal(o[1 * N + k], fm);
    assert_int_equal(o[2 * N + k], x / y);
    assert_int_equal(o[3 * N + k], x % y);
    assert_int_equal(o[4 * N + k], x < y ? x : y);
    assert_int_equal(o[5 * N + k], x > y ? x : y);
    assert_int_equal(o[6 * N + k], (int32_t)((uint32_t)x << 3) >> 5);
    assert_int_equal(o[7 * N + k], (uint8_t)x > 200 ? (int8_t)x : -1);
    double h = x / 2.0, r = floor(h);
    if (h - r > 0.5 || (h - r == 0.5 && fmod(r, 2) != 0)) r += 1;
    assert_int_equal(u[k], r < 0 ? 0 : r > 255 ? 255 : (int)r);
  }
  lir_jit_free(jit);
  lir_func_free(f);
}

/* Intrinsics against libm; a large allocation (heap path); let and if. */
static void test_intrinsics_alloc(void **state) {
  (void)state;
  enum { N = 40000 };
  lir_func *f = lir_func_new("intr");
  lir_buf *X = lir_param(f, "X", LIR_F32, 1, (int64_t[]){N});
  lir_buf *Y = lir_param(f, "Y", LIR_F32, 2, (int64_t[]){4, N});
  lir_buf *T = lir_buf_new(f, "T", LIR_F32, 1, (int64_t[]){N}, LIR_SCOPE_LOCAL); /* 160 KB: heap */
  lir_var *i = lir_var_new(f, "i", LIR_I64), *j = lir_var_new(f, "j", LIR_I64), *t = lir_var_new(f, "t", LIR_F32);
  lir_expr *ii = lir_ref(f, i), *jj = lir_ref(f, j);
  lir_stmt *fill = lir_for(f, i, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_SERIAL,
                           lir_store1(f, T, ii, lir_call1(f, LIR_TANH, lir_load1(f, X, ii))));
  lir_expr *tv = lir_ref(f, t);
  lir_block b;
  lir_block_init(&b, f);
  lir_block_add(&b, lir_store(f, Y, (lir_expr *[]){lir_i64(f, 0), jj}, tv));
  lir_block_add(&b, lir_store(f, Y, (lir_expr *[]){lir_i64(f, 1), jj}, lir_call1(f, LIR_EXP, lir_load1(f, X, jj))));
  lir_block_add(&b, lir_store(f, Y, (lir_expr *[]){lir_i64(f, 2), jj}, lir_call1(f, LIR_SIGMOID, lir_load1(f, X, jj))));
  lir_block_add(&b, lir_if(f, lir_bin(f, LIR_LT, tv, lir_f32(f, 0)),
                           lir_store(f, Y, (lir_expr *[]){lir_i64(f, 3), jj}, lir_f32(f, -1)),
                           lir_store(f, Y, (lir_expr *[]){lir_i64(f, 3), jj}, lir_call1(f, LIR_SQRT, tv))));
  lir_stmt *use = lir_for(f, j, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_SERIAL,
                          lir_let(f, t, lir_load1(f, T, jj), lir_block_stmt(&b)));
  f->body = lir_alloc_stmt(f, T, lir_seq(f, 2, (lir_stmt *[]){fill, use}));
  lir_jit *jit;
  lir_kernel_fn fn = build(f, &jit);
  float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * 4 * N);
  for (int k = 0; k < N; k++) x[k] = (float)(k - N / 2) / 4000.0f;
  void *args[2] = {x, y};
  fn(args);
  for (int k = 0; k < N; k++) {
    float th = tanhf(x[k]);
    assert_float_equal(y[k], th, 1e-6);
    assert_float_equal(y[N + k], expf(x[k]), 1e-5 * expf(x[k]));
    assert_float_equal(y[2 * N + k], 1.0f / (1.0f + expf(-x[k])), 1e-6);
    assert_float_equal(y[3 * N + k], th < 0 ? -1.0f : sqrtf(th), 1e-6);
  }
  free(x), free(y);
  lir_jit_free(jit);
  lir_func_free(f);
}

/* The trigonometric and hyperbolic intrinsics (libm calls or LLVM intrinsics) against libm, in
 * f32 (vectorized loop) and f64, and their names in the text dump. */
static void test_trig_intrinsics(void **state) {
  (void)state;
  enum { N = 257, K = 11 };
  static const lir_intrin fns[K] = {LIR_SIN,  LIR_COS,  LIR_TAN,   LIR_ASIN,  LIR_ACOS, LIR_ATAN,
                                    LIR_SINH, LIR_COSH, LIR_ASINH, LIR_ACOSH, LIR_ATANH};
  static double (*const ref[K])(double) = {sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh};
  for (int wide = 0; wide < 2; wide++) {
    lir_dtype t = wide ? LIR_F64 : LIR_F32;
    lir_func *f = lir_func_new("trig");
    lir_buf *X = lir_param(f, "X", t, 1, (int64_t[]){N});
    lir_buf *Y = lir_param(f, "Y", t, 2, (int64_t[]){K, N});
    lir_var *i = lir_var_new(f, "i", LIR_I64);
    lir_expr *ii = lir_ref(f, i);
    lir_block b;
    lir_block_init(&b, f);
    for (int k = 0; k < K; k++) {
      lir_expr *x = lir_load1(f, X, ii);
      if (fns[k] == LIR_ACOSH) x = lir_add(f, x, lir_float(f, t, 2)); /* acosh needs x >= 1 */
      lir_block_add(&b, lir_store(f, Y, (lir_expr *[]){lir_i64(f, k), ii}, lir_call1(f, fns[k], x)));
    }
    f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_VECTORIZED, lir_block_stmt(&b));
    char *txt = lir_dump_str(f);
    assert_non_null(strstr(txt, "asinh("));
    assert_non_null(strstr(txt, "atanh("));
    free(txt);
    lir_jit *jit;
    lir_kernel_fn fn = build(f, &jit);
    float xf[N], yf[K * N];
    double xd[N], yd[K * N];
    for (int k = 0; k < N; k++) xd[k] = (k - N / 2) / (N / 2 + 1.0), xf[k] = (float)xd[k];
    void *args[2] = {wide ? (void *)xd : (void *)xf, wide ? (void *)yd : (void *)yf};
    fn(args);
    for (int k = 0; k < K; k++)
      for (int e = 0; e < N; e++) {
        double x = wide ? xd[e] : xf[e], want = ref[k](fns[k] == LIR_ACOSH ? x + 2 : x);
        double got = wide ? yd[k * N + e] : yf[k * N + e];
        assert_float_equal(got, want, (wide ? 1e-14 : 1e-6) * (1 + fabs(want)));
      }
    lir_jit_free(jit);
    lir_func_free(f);
  }
}

/* f16: storage in half precision, arithmetic and intrinsics rounded to half; conversions both
 * ways, against C's _Float16. */
static void test_f16(void **state) {
  (void)state;
#ifdef __FLT16_MAX__
  enum { N = 100 };
  lir_func *f = lir_func_new("half");
  lir_buf *X = lir_param(f, "X", LIR_F16, 1, (int64_t[]){N});
  lir_buf *Y = lir_param(f, "Y", LIR_F16, 1, (int64_t[]){N});
  lir_buf *Z = lir_param(f, "Z", LIR_F32, 1, (int64_t[]){N});
  lir_buf *H = lir_param(f, "H", LIR_F16, 1, (int64_t[]){N});
  lir_var *i = lir_var_new(f, "i", LIR_I64);
  lir_expr *ii = lir_ref(f, i), *x = lir_load1(f, X, ii);
  lir_block b;
  lir_block_init(&b, f);
  lir_block_add(&b, lir_store1(f, Y, ii, lir_add(f, lir_call1(f, LIR_SIN, x), lir_mul(f, x, lir_float(f, LIR_F16, 3)))));
  lir_block_add(&b, lir_store1(f, Z, ii, lir_cast(f, LIR_F32, x)));
  lir_block_add(&b, lir_store1(f, H, ii, lir_cast(f, LIR_F16, lir_mul(f, lir_cast(f, LIR_F32, x), lir_f32(f, 1.0 / 3)))));
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, N), LIR_FOR_VECTORIZED, lir_block_stmt(&b));
  char *txt = lir_dump_str(f);
  assert_non_null(strstr(txt, "X: f16[100]"));
  assert_non_null(strstr(txt, "3h"));
  free(txt);
  lir_jit *jit;
  lir_kernel_fn fn = build(f, &jit);
  _Float16 xv[N], yv[N], hv[N];
  float zv[N];
  for (int k = 0; k < N; k++) xv[k] = (_Float16)((k - 50) * 0.173f);
  void *args[4] = {xv, yv, zv, hv};
  fn(args);
  for (int k = 0; k < N; k++) {
    _Float16 s = (_Float16)sinf((float)xv[k]), m = (_Float16)((float)xv[k] * 3.0f);
    assert_true(yv[k] == (_Float16)((float)s + (float)m));
    assert_true(zv[k] == (float)xv[k]);
    assert_true(hv[k] == (_Float16)((float)xv[k] * (float)(1.0 / 3)));
  }
  lir_jit_free(jit);
  lir_func_free(f);
#else
  skip();
#endif
}

/* The verifier names the place of each error. */
static void test_verify_errors(void **state) {
  (void)state;
  ovta_error err = {0};
  lir_func *f = lir_func_new("bad");
  lir_buf *A = lir_param(f, "A", LIR_F32, 2, (int64_t[]){2, 3});
  lir_var *i = lir_var_new(f, "i", LIR_I64);
  /* wrong index count */
  f->body = lir_store1(f, A, lir_i64(f, 0), lir_f32(f, 1));
  f->body->nidx = 1;
  assert_int_equal(lir_verify(f, true, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "A"));
  /* variable outside its loop */
  f->body = lir_store(f, A, (lir_expr *[]){lir_ref(f, i), lir_i64(f, 0)}, lir_f32(f, 1));
  assert_int_equal(lir_verify(f, true, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "variable i"));
  /* dtype mismatch */
  f->body = lir_store(f, A, (lir_expr *[]){lir_i64(f, 0), lir_i64(f, 0)}, lir_add(f, lir_f32(f, 1), lir_int(f, LIR_I32, 1)));
  assert_int_equal(lir_verify(f, true, &err), OVTA_EINVAL);
  /* constant out of bounds */
  f->body = lir_store(f, A, (lir_expr *[]){lir_i64(f, 2), lir_i64(f, 0)}, lir_f32(f, 1));
  assert_int_equal(lir_verify(f, true, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "out of"));
  /* accelerator scope on the CPU */
  lir_buf *S = lir_buf_new(f, "acc_buf", LIR_I32, 1, (int64_t[]){16}, LIR_SCOPE_ACC);
  f->body = lir_alloc_stmt(f, S, lir_store1(f, S, lir_i64(f, 0), lir_int(f, LIR_I32, 0)));
  assert_int_equal(lir_verify(f, true, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "acc_buf"));
  assert_int_equal(lir_verify(f, false, &err), OVTA_OK);
  /* opaque intrinsic: fine for the accelerator, not compilable for the CPU */
  f->body = lir_eval(f, lir_opaque(f, "ovta.gemm", LIR_VOID, 0, NULL));
  assert_int_equal(lir_verify(f, false, &err), OVTA_OK);
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("t", NULL, &m, &err), err);
  assert_int_equal(lir_module_add(m, f, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "ovta.gemm"));
  lir_module_free(m);
  lir_func_free(f);
}

/* Object code: emitted to memory, loaded into a fresh JIT, runs. */
static void test_object_roundtrip(void **state) {
  (void)state;
  enum { M = 5, N = 6, K = 7 };
  lir_func *f = matmul_func(M, N, K);
  ovta_error err = {0};
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("obj", NULL, &m, &err), err);
  OVTA_ASSERT_OK(lir_module_add(m, f, &err), err);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  char *ir = lir_module_ir(m);
  assert_non_null(strstr(ir, "define void @matmul(ptr"));
  free(ir);
  void *obj;
  size_t len;
  OVTA_ASSERT_OK(lir_module_emit_object_mem(m, &obj, &len, &err), err);
  assert_true(len > 64);
  assert_memory_equal(obj, "\x7f" "ELF", 4);
  lir_module_free(m);
  lir_jit *jit;
  OVTA_ASSERT_OK(lir_jit_new(&jit, &err), err);
  OVTA_ASSERT_OK(lir_jit_add_object(jit, obj, len, "obj", &err), err);
  free(obj);
  check_matmul(jit, M, N, K);
  void *fp;
  assert_int_equal(lir_jit_lookup(jit, "nosuch", &fp, &err), OVTA_EINTERNAL);
  lir_jit_free(jit);
  lir_func_free(f);
}

/* f compiled at -O opt through cache c: its object code (malloc'ed), and its key's bytes plus
 * the code's (*bytes: what the cache holds for it). */
static void *cached_obj(lir_func *f, int opt, lir_obj_cache *c, size_t *len, size_t *bytes) {
  lir_codegen_opts o;
  lir_codegen_opts_init(&o);
  o.opt_level = opt;
  o.obj_cache = c;
  ovta_error err = {0};
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("obj", &o, &m, &err), err);
  OVTA_ASSERT_OK(lir_module_add(m, f, &err), err);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  char *ir = lir_module_ir(m);
  void *obj;
  OVTA_ASSERT_OK(lir_module_emit_object_mem(m, &obj, len, &err), err);
  *bytes = strlen(ir) + *len;
  free(ir);
  lir_module_free(m);
  return obj;
}

#define assert_stats(c, hits, misses)                                                              \
  do {                                                                                             \
    long h_, m_;                                                                                   \
    lir_obj_cache_stats(c, &h_, &m_);                                                              \
    assert_int_equal(h_, hits);                                                                    \
    assert_int_equal(m_, misses);                                                                  \
  } while (0)

/* The object code cache: the same IR and -O again is a hit with the same bytes, which run;
 * other IR or another -O is a miss; the oldest entry gives way when the ring is full; an entry
 * larger than the ring is not kept. */
static void test_obj_cache(void **state) {
  (void)state;
  enum { M = 5, N = 6, K = 7 };
  lir_func *f = matmul_func(M, N, K), *g = matmul_func(3, 4, 5);
  ovta_error err = {0};
  lir_obj_cache *c;
  OVTA_ASSERT_OK(lir_obj_cache_new((size_t)4 << 20, &c, &err), err);
  size_t l1, l2, l3, bf, bg, b0;
  void *o1 = cached_obj(f, 3, c, &l1, &bf);
  assert_stats(c, 0, 1);
  void *o2 = cached_obj(f, 3, c, &l2, &bf);
  assert_stats(c, 1, 1);
  assert_int_equal(l1, l2);
  assert_memory_equal(o1, o2, l1);
  free(cached_obj(g, 3, c, &l3, &bg));
  free(cached_obj(f, 0, c, &l3, &b0));
  assert_stats(c, 1, 3);
  free(cached_obj(g, 3, c, &l3, &bg));
  assert_stats(c, 2, 3);
  lir_jit *jit;
  OVTA_ASSERT_OK(lir_jit_new(&jit, &err), err);
  OVTA_ASSERT_OK(lir_jit_add_object(jit, o2, l2, "obj", &err), err);
  check_matmul(jit, M, N, K);
  lir_jit_free(jit);
  free(o1), free(o2);
  lir_obj_cache_free(c);
  /* room for f's entry or g's, not both: g's drops f's */
  OVTA_ASSERT_OK(lir_obj_cache_new(bf + bg - 1, &c, &err), err);
  free(cached_obj(f, 3, c, &l1, &bf));
  free(cached_obj(f, 3, c, &l1, &bf));
  free(cached_obj(g, 3, c, &l1, &bg));
  free(cached_obj(g, 3, c, &l1, &bg));
  assert_stats(c, 2, 2);
  free(cached_obj(f, 3, c, &l1, &bf));
  assert_stats(c, 2, 3);
  lir_obj_cache_free(c);
  /* too small for any entry */
  OVTA_ASSERT_OK(lir_obj_cache_new(16, &c, &err), err);
  free(cached_obj(f, 3, c, &l1, &bf));
  free(cached_obj(f, 3, c, &l1, &bf));
  assert_stats(c, 0, 2);
  lir_obj_cache_free(c);
  lir_func_free(f);
  lir_func_free(g);
}

/* O3 vectorizes a vectorized-kind elementwise loop: the optimized IR has vector float ops. */
static void test_vectorized_ir(void **state) {
  (void)state;
  lir_func *f = lir_func_new("vadd");
  lir_buf *A = lir_param(f, "A", LIR_F32, 1, (int64_t[]){1024});
  lir_buf *B = lir_param(f, "B", LIR_F32, 1, (int64_t[]){1024});
  lir_var *i = lir_var_new(f, "i", LIR_I64);
  lir_expr *ii = lir_ref(f, i);
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 1024), LIR_FOR_VECTORIZED,
                    lir_store1(f, B, ii, lir_mul(f, lir_load1(f, A, ii), lir_f32(f, 3))));
  ovta_error err = {0};
  lir_codegen_opts o;
  lir_codegen_opts_init(&o);
  o.host_cpu = false; /* generic x86-64: SSE2, 4 floats a vector */
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("v", &o, &m, &err), err);
  OVTA_ASSERT_OK(lir_module_add(m, f, &err), err);
  char *before = lir_module_ir(m);
  assert_null(strstr(before, "x float>"));
  free(before);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  char *ir = lir_module_ir(m);
  assert_non_null(strstr(ir, "fmul <4 x float>"));
  free(ir);
  lir_module_free(m);
  lir_func_free(f);
}

/* The queries (lir.h section 4): equality, variable use, affine forms, the statement walk. */
static int walk_count(lir_walk *w, lir_stmt **slot) {
  int *n = w->ctx;
  n[0]++;
  if ((*slot)->kind == LIR_S_STORE) {
    n[1] = w->depth;
    *w->slot[w->depth - 1] = *slot; /* the store replaces its loop */
  }
  return 0;
}

static void test_queries(void **state) {
  (void)state;
  lir_func *f = lir_func_new("q");
  lir_buf *A = lir_param(f, "A", LIR_I32, 2, (int64_t[]){4, 4});
  lir_var *i = lir_var_new(f, "i", LIR_I64), *j = lir_var_new(f, "j", LIR_I64);
  /* 3*i - (-j + 5): affine 3i + j - 5 */
  lir_expr *e = lir_bin(f, LIR_SUB, lir_muli(f, lir_ref(f, i), 3),
                        lir_bin(f, LIR_ADD, lir_un(f, LIR_NEG, lir_ref(f, j)), lir_i64(f, 5)));
  lir_expr *e2 = lir_bin(f, LIR_SUB, lir_muli(f, lir_ref(f, i), 3),
                         lir_bin(f, LIR_ADD, lir_un(f, LIR_NEG, lir_ref(f, j)), lir_i64(f, 5)));
  assert_true(lir_expr_eq(e, e2));
  assert_false(lir_expr_eq(e, lir_ref(f, i)));
  assert_false(lir_expr_eq(e, NULL));
  assert_true(lir_expr_eq(NULL, NULL));
  assert_true(lir_uses_var(e, j));
  assert_false(lir_uses_var(lir_muli(f, lir_ref(f, i), 2), j));
  assert_ptr_equal(lir_var_of(lir_ref(f, i)), i);
  assert_null(lir_var_of(e));
  lir_affine a = lir_affine_of(e);
  assert_true(a.ok);
  assert_int_equal(a.n, 2);
  assert_ptr_equal(a.v[0], i);
  assert_int_equal(a.k[0], 3);
  assert_int_equal(a.k[1], 1);
  assert_int_equal(a.c, -5);
  assert_false(lir_affine_of(lir_bin(f, LIR_MUL, lir_ref(f, i), lir_ref(f, j))).ok);
  assert_false(lir_affine_of(NULL).ok);
  lir_affine_add(&a, j, -1); /* 3i + 0j - 5 */
  assert_true(lir_expr_eq(lir_affine_expr(f, &a), lir_addi(f, lir_muli(f, lir_ref(f, i), 3), -5)));
  /* for i { for j { A[i, j] = A[i, j] + 1 } } */
  lir_expr *ij[2] = {lir_ref(f, i), lir_ref(f, j)};
  lir_stmt *st = lir_store(f, A, ij, lir_add(f, lir_load(f, A, ij), lir_int(f, LIR_I32, 1)));
  assert_true(lir_loads_stored(st, st->value->args[0]));
  assert_false(lir_loads_stored(st, st->value));
  lir_stmt *lj = lir_for(f, j, lir_i64(f, 0), lir_i64(f, 4), LIR_FOR_SERIAL, st);
  lir_stmt *li = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 4), LIR_FOR_SERIAL, lj);
  assert_ptr_equal(lir_with_body(f, li, lj, NULL), li);
  lir_stmt *li2 = lir_with_body(f, li, st, NULL);
  assert_true(li2 != li && li2->var == i && li2->body == st && li->body == lj);
  int n[2] = {0, 0};
  lir_walk w = {.visit = walk_count, .ctx = n, .what = "test"};
  f->body = li;
  assert_int_equal(lir_walk_stmt(&w, &f->body), 0);
  assert_int_equal(n[0], 3);
  assert_int_equal(n[1], 2);
  assert_int_equal(w.depth, 0);
  assert_ptr_equal(li->body, st); /* replaced through its slot */
  /* too deep */
  lir_stmt *deep = st;
  for (int k = 0; k <= LIR_WALK_DEPTH; k++) deep = lir_attr(f, "x", lir_i64(f, 0), deep);
  ovta_error err = {0};
  lir_walk w2 = {.visit = walk_count, .ctx = n, .what = "test", .err = &err};
  assert_int_not_equal(lir_walk_stmt(&w2, &deep), 0);
  assert_non_null(strstr(err.msg, "test: statements nested too deep"));
  lir_func_free(f);
}

/* Unique names: a taken name gets the smallest free suffix _N (written as "%s_%d"), whatever else
 * looks like one (k_01, k_1x, kk_1, a name renamed in place), checked against a plain search. */
static void test_unique_names(void **state) {
  (void)state;
  lir_func *f = lir_func_new("names");
  assert_non_null(f);
  static const char *const pre[] = {"k", "k_2", "k_01", "k_1x", "kk_1", "k_4", "x y"};
  for (int i = 0; i < 7; i++) lir_var_new(f, pre[i], LIR_I64);
  assert_string_equal(f->vars[6]->name, "x_y");
  lir_buf *b = lir_buf_new(f, "k_3", LIR_F32, 1, (int64_t[]){4}, LIR_SCOPE_LOCAL);
  b->name = "k_5"; /* renamed in place (accel/sched.c does) */
  static const char *const want[] = {"k_1", "k_3", "k_6", "k_7"};
  for (int i = 0; i < 4; i++) assert_string_equal(lir_var_new(f, "k", LIR_I64)->name, want[i]);
  for (int i = 0; i < 500; i++) lir_var_new(f, "j", LIR_I64);
  char nm[16];
  snprintf(nm, sizeof nm, "j_%d", 499);
  assert_string_equal(f->vars[f->nvars - 1]->name, nm);
  lir_func_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unique_names),
      cmocka_unit_test(test_matmul),           cmocka_unit_test(test_conv),
      cmocka_unit_test(test_int_ops),          cmocka_unit_test(test_intrinsics_alloc),
      cmocka_unit_test(test_trig_intrinsics),  cmocka_unit_test(test_f16),
      cmocka_unit_test(test_verify_errors),    cmocka_unit_test(test_object_roundtrip),
      cmocka_unit_test(test_vectorized_ir),    cmocka_unit_test(test_queries),
      cmocka_unit_test(test_obj_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
