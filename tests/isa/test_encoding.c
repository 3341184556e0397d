/* Encoding tests: instruction words built by hand from the bit tables (isa/ISA.md, and the
 * VTA layout for the default config) decode to the right fields and encode back, for every
 * format and every shipped config. The expected bit positions here are written out by hand,
 * independently of isa/encoding.json. */
#include "ovta_test.h"

/* Set `width` bits at `lo` in a 128-bit word pair. */
static void put(uint64_t w[2], int lo, int width, uint64_t v) {
  w[lo / 64] |= (v & ((width == 64) ? ~0ull : (1ull << width) - 1)) << (lo % 64);
}

/* Hand-derived index widths per config: uop, inp, wgt, acc. */
typedef struct {
  const char *name;
  int uop, inp, wgt, acc;
} widths;
static const widths W[] = {
    {"default", 13, 11, 10, 11}, /* 2^15/4, 2^15/16, 2^18/256, 2^17/64 */
    {"small", 7, 7, 6, 7},       /* 2^9/4, 2^10/8, 2^12/64, 2^12/32 */
    {"batch2", 13, 10, 10, 10},  /* 2^15/4, 2^15/32, 2^18/256, 2^17/128 */
};

static void roundtrip(const ovta_isa *isa, const uint64_t w[2], ovta_insn *out) {
  ovta_insn_bits b = {{w[0], w[1]}}, back;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_insn_decode(isa, &b, out, &err), err);
  OVTA_ASSERT_OK(ovta_insn_encode(isa, out, &back, &err), err);
  assert_int_equal(back.w[0], w[0]);
  assert_int_equal(back.w[1], w[1]);
  /* and through bytes */
  uint8_t bytes[16];
  ovta_insn_bits_store(&b, bytes);
  assert_int_equal(bytes[0], w[0] & 0xff);
  assert_int_equal(bytes[8], w[1] & 0xff);
  ovta_insn_bits again;
  ovta_insn_bits_load(bytes, &again);
  assert_int_equal(again.w[0], w[0]);
  assert_int_equal(again.w[1], w[1]);
}

static void test_mem_format(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof W / sizeof W[0]; c++) {
    ovta_isa isa;
    ovta_test_isa(W[c].name, &isa);
    /* LOAD INP, pop_next, push_next; memory format is the same for every config */
    uint64_t w[2] = {0, 0};
    put(w, 0, 3, 0);
    put(w, 4, 1, 1);
    put(w, 6, 1, 1);
    put(w, 7, 3, 2);
    put(w, 10, 16, 37);
    put(w, 26, 32, 0xdeadbe);
    put(w, 64, 16, 7);
    put(w, 80, 16, 9);
    put(w, 96, 16, 300);
    put(w, 112, 4, 1);
    put(w, 116, 4, 2);
    put(w, 120, 4, 3);
    put(w, 124, 4, 15);
    ovta_insn d;
    roundtrip(&isa, w, &d);
    assert_int_equal(d.opcode, OVTA_OP_LOAD);
    assert_int_equal(d.pop_prev, 0);
    assert_int_equal(d.pop_next, 1);
    assert_int_equal(d.push_prev, 0);
    assert_int_equal(d.push_next, 1);
    assert_int_equal(d.memory_type, OVTA_MEM_INP);
    assert_int_equal(d.sram_base, 37);
    assert_int_equal(d.dram_base, 0xdeadbe);
    assert_int_equal(d.y_size, 7);
    assert_int_equal(d.x_size, 9);
    assert_int_equal(d.x_stride, 300);
    assert_int_equal(d.y_pad_0, 1);
    assert_int_equal(d.y_pad_1, 2);
    assert_int_equal(d.x_pad_0, 3);
    assert_int_equal(d.x_pad_1, 15);
    /* bits 63:58 are reserved */
    ovta_insn_bits bad = {{w[0] | 1ull << 60, w[1]}};
    ovta_error err;
    assert_int_equal(ovta_insn_decode(&isa, &bad, &d, &err), OVTA_EINSN);
    assert_non_null(strstr(err.msg, "reserved bit 60"));
  }
}

static void test_gemm_alu_format(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof W / sizeof W[0]; c++) {
    ovta_isa isa;
    ovta_test_isa(W[c].name, &isa);
    int u = W[c].uop, in = W[c].inp, wg = W[c].wgt, ac = W[c].acc;
    /* GEMM with every field at a distinct value */
    uint64_t w[2] = {0, 0};
    int b = 0;
    put(w, b, 3, 2), b += 3;
    put(w, b, 1, 1), b += 1; /* pop_prev */
    b += 1;
    put(w, b, 1, 1), b += 1; /* push_prev */
    b += 1;
    put(w, b, 1, 1), b += 1; /* reset */
    put(w, b, u, 5), b += u;
    put(w, b, u + 1, 6), b += u + 1;
    put(w, b, 14, 100), b += 14;
    put(w, b, 14, 200), b += 14;
    b = 64;
    put(w, b, ac, 3), b += ac;
    put(w, b, ac, 4), b += ac;
    put(w, b, in, 5), b += in;
    put(w, b, in, 6), b += in;
    put(w, b, wg, 7), b += wg;
    put(w, b, wg, 8), b += wg;
    ovta_insn d;
    roundtrip(&isa, w, &d);
    assert_int_equal(d.opcode, OVTA_OP_GEMM);
    assert_int_equal(d.pop_prev, 1);
    assert_int_equal(d.push_prev, 1);
    assert_int_equal(d.pop_next + d.push_next, 0);
    assert_int_equal(d.reset, 1);
    assert_int_equal(d.uop_bgn, 5);
    assert_int_equal(d.uop_end, 6);
    assert_int_equal(d.iter_out, 100);
    assert_int_equal(d.iter_in, 200);
    assert_int_equal(d.dst_factor_out, 3);
    assert_int_equal(d.dst_factor_in, 4);
    assert_int_equal(d.src_factor_out, 5);
    assert_int_equal(d.src_factor_in, 6);
    assert_int_equal(d.wgt_factor_out, 7);
    assert_int_equal(d.wgt_factor_in, 8);

    /* ALU SHR with a negative immediate */
    uint64_t a[2] = {0, 0};
    put(a, 0, 3, 4);
    put(a, 8, u, 1);
    put(a, 8 + u, u + 1, 2);
    put(a, 8 + 2 * u + 1, 14, 1);
    put(a, 8 + 2 * u + 1 + 14, 14, 1);
    b = 64 + 4 * ac;
    put(a, b, 3, 3);          /* SHR */
    put(a, b + 3, 1, 1);      /* use_imm */
    put(a, b + 4, 16, 0xfffd); /* -3 */
    roundtrip(&isa, a, &d);
    assert_int_equal(d.opcode, OVTA_OP_ALU);
    assert_int_equal(d.alu_opcode, OVTA_ALU_SHR);
    assert_int_equal(d.use_imm, 1);
    assert_int_equal(d.imm, -3);
    assert_int_equal(d.uop_bgn, 1);
    assert_int_equal(d.uop_end, 2);
  }
}

/* The default config's positions are VTA's (the table): spot-check absolute bits. */
static void test_default_is_vta(void **state) {
  (void)state;
  ovta_isa isa;
  ovta_test_isa("default", &isa);
  ovta_insn g = {.opcode = OVTA_OP_GEMM, .uop_end = 1u << 13, .iter_in = 1u << 13,
                 .wgt_factor_in = 1u << 9};
  ovta_insn_bits b;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_insn_encode(&isa, &g, &b, &err), err);
  assert_int_equal(b.w[0], 2ull | 1ull << 34 | 1ull << 62); /* uop_end [34:21], iter_in [62:49] */
  assert_int_equal(b.w[1], 1ull << 63);                     /* wgt_factor_in [127:118] */
  ovta_insn a = {.opcode = OVTA_OP_ALU, .alu_opcode = OVTA_ALU_MUL, .use_imm = 1, .imm = -1};
  OVTA_ASSERT_OK(ovta_insn_encode(&isa, &a, &b, &err), err);
  assert_int_equal(b.w[1], 4ull << 44 | 1ull << 47 | 0xffffull << 48); /* [110:108], [111], [127:112] */
  /* overlap: bit 63, which VTA leaves zero (isa/ISA.md "Overlap"); a word without it decodes 0 */
  ovta_insn o = {.opcode = OVTA_OP_GEMM, .overlap = 1};
  OVTA_ASSERT_OK(ovta_insn_encode(&isa, &o, &b, &err), err);
  assert_int_equal(b.w[0], 2ull | 1ull << 63);
  o.opcode = OVTA_OP_ALU;
  OVTA_ASSERT_OK(ovta_insn_encode(&isa, &o, &b, &err), err);
  assert_int_equal(b.w[0], 4ull | 1ull << 63);
  ovta_insn d;
  b.w[0] = 2ull | 1ull << 62, b.w[1] = 0; /* a VTA GEMM: iter_in's top bit, bit 63 clear */
  OVTA_ASSERT_OK(ovta_insn_decode(&isa, &b, &d, &err), err);
  assert_int_equal(d.overlap, 0);
  assert_int_equal(d.iter_in, 1u << 13);
  b.w[0] |= 1ull << 63;
  OVTA_ASSERT_OK(ovta_insn_decode(&isa, &b, &d, &err), err);
  assert_int_equal(d.overlap, 1);
  ovta_uop u = {.dst_idx = 2047, .src_idx = 1, .wgt_idx = 1023};
  uint32_t word;
  OVTA_ASSERT_OK(ovta_uop_encode(&isa, &u, &word, &err), err);
  assert_int_equal(word, 2047u | 1u << 11 | 1023u << 22);
  ovta_uop back;
  ovta_uop_decode(&isa, word, &back);
  assert_int_equal(back.dst_idx, 2047);
  assert_int_equal(back.src_idx, 1);
  assert_int_equal(back.wgt_idx, 1023);
}

static void test_encode_rejects_overflow(void **state) {
  (void)state;
  ovta_isa isa;
  ovta_test_isa("small", &isa);
  ovta_insn g = {.opcode = OVTA_OP_GEMM, .dst_factor_out = 128}; /* 7 bits in small */
  ovta_insn_bits b;
  ovta_error err;
  assert_int_equal(ovta_insn_encode(&isa, &g, &b, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "dst_factor_out"));
  ovta_insn a = {.opcode = OVTA_OP_ALU, .imm = 40000};
  assert_int_equal(ovta_insn_encode(&isa, &a, &b, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "imm"));
  ovta_insn x = {.opcode = 6};
  assert_int_equal(ovta_insn_encode(&isa, &x, &b, &err), OVTA_EINSN);
  ovta_insn_bits raw = {{7, 0}};
  assert_int_equal(ovta_insn_decode(&isa, &raw, &x, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "opcode 7"));
}

static void test_static_checks(void **state) {
  (void)state;
  ovta_isa isa;
  ovta_test_isa("default", &isa);
  ovta_error err;
  ovta_insn st = {.opcode = OVTA_OP_STORE, .memory_type = OVTA_MEM_INP, .x_size = 1, .y_size = 1};
  assert_int_equal(ovta_insn_check(&isa, &st, 4, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "instruction 4"));
  ovta_insn wp = {.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_WGT, .x_size = 1, .y_size = 1, .x_pad_0 = 1};
  assert_int_equal(ovta_insn_check(&isa, &wp, 0, &err), OVTA_EINSN);
  ovta_insn ip = {.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_INP, .x_size = 1, .y_size = 1, .x_pad_0 = 1};
  assert_int_equal(ovta_insn_check(&isa, &ip, 0, &err), OVTA_OK);
  ovta_insn big = {.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_INP, .sram_base = 2040, .x_size = 9, .y_size = 1};
  assert_int_equal(ovta_insn_check(&isa, &big, 0, &err), OVTA_EINSN);
  big.x_size = 8;
  assert_int_equal(ovta_insn_check(&isa, &big, 0, &err), OVTA_OK);
  ovta_insn u = {.opcode = OVTA_OP_GEMM, .uop_bgn = 3, .uop_end = 2};
  assert_int_equal(ovta_insn_check(&isa, &u, 0, &err), OVTA_EINSN);
  ovta_insn al = {.opcode = OVTA_OP_ALU, .alu_opcode = OVTA_ALU_RQ}; /* 7, the last 3-bit code: defined */
  assert_int_equal(OVTA_ALU_RQ, 7);
  assert_int_equal(ovta_insn_check(&isa, &al, 0, &err), OVTA_OK);
  al.alu_opcode = 8; /* only an ovta_insn holds it (the field has 3 bits) */
  assert_int_equal(ovta_insn_check(&isa, &al, 0, &err), OVTA_EINSN);
}

static void test_config_derived(void **state) {
  (void)state;
  ovta_config c;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_config_load("default", &c, &err), err);
  assert_int_equal(c.uop_depth, 8192);
  assert_int_equal(c.inp_depth, 2048);
  assert_int_equal(c.wgt_depth, 1024);
  assert_int_equal(c.acc_depth, 2048);
  assert_int_equal(c.inp_bytes, 16);
  assert_int_equal(c.wgt_bytes, 256);
  assert_int_equal(c.acc_bytes, 64);
  assert_int_equal(c.out_bytes, 16);
  OVTA_ASSERT_OK(ovta_config_load("batch2", &c, &err), err);
  assert_int_equal(c.batch, 2);
  assert_int_equal(c.acc_bytes, 128);
}

static void test_bad_configs(void **state) {
  (void)state;
  ovta_config c;
  ovta_error err;
  static const struct {
    const char *json, *expect;
  } bad[] = {
      {"{", "malformed JSON"},
      {"[]", "must be a JSON object"},
      {"{\"LOG_BATCH\": 0}", "missing key"},
      {"{\"LOG_BATCHX\": 0}", "unknown key 'LOG_BATCHX'"},
      {"{\"LOG_BATCH\": 1.5}", "must be an integer"},
      {"{\"LOG_BATCH\": 1e300}", "must be an integer"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(ovta_config_parse(bad[i].json, "t.json", &c, &err), OVTA_ECONFIG);
    if (!strstr(err.msg, bad[i].expect)) fail_msg("%s: got '%s'", bad[i].json, err.msg);
  }
  /* out of range, and buffers too large for the field widths */
  char *base;
  OVTA_ASSERT_OK(ovta_read_file(OVTA_SRC_DIR "/isa/configs/default.json", 1 << 16, &base, NULL, &err), err);
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", base);
  char *p = strstr(buf, "\"LOG_BLOCK\": 4");
  assert_non_null(p);
  p[13] = '9';
  assert_int_equal(ovta_config_parse(buf, "t.json", &c, &err), OVTA_ECONFIG);
  assert_non_null(strstr(err.msg, "LOG_BLOCK"));
  snprintf(buf, sizeof buf, "%s", base);
  p = strstr(buf, "\"LOG_ACC_BUFF_SIZE\": 17");
  assert_non_null(p);
  memcpy(p + 21, "21", 2); /* 2^21/64: 15-bit acc indices: GEMM word 1 needs 2*(15+11+10) > 64 bits */
  OVTA_ASSERT_OK(ovta_config_parse(buf, "t.json", &c, &err), err);
  ovta_isa isa;
  assert_int_equal(ovta_isa_init(&isa, &c, &err), OVTA_ECONFIG);
  assert_non_null(strstr(err.msg, "does not fit"));
  free(base);
  assert_int_equal(ovta_config_load("no_such_config", &c, &err), OVTA_ECONFIG);
  assert_int_equal(ovta_config_load("../etc", &c, &err), OVTA_EIO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mem_format),     cmocka_unit_test(test_gemm_alu_format),
      cmocka_unit_test(test_default_is_vta), cmocka_unit_test(test_encode_rejects_overflow),
      cmocka_unit_test(test_static_checks),  cmocka_unit_test(test_config_derived),
      cmocka_unit_test(test_bad_configs),
  };
  return cmocka_run_group_tests_name("isa encoding", tests, NULL, NULL);
}
