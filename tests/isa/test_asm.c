/* Assembler/disassembler tests: every field of every format round-trips text -> binary -> text
 * for all three configs (the reference is the input text itself); hand-written lines assemble
 * to words computed by hand from the bit tables of isa/ISA.md; every error kind gives its
 * message with the right line:col and a caret under the token; whole programs (buffers, data,
 * micro-ops, dumps) print back to the same text. */
#include "ovta_test.h"

#include <stdio.h>

/* Hand-derived index widths per config: uop, inp, wgt, acc (as in test_encoding.c). */
typedef struct {
  const char *name;
  int uop, inp, wgt, acc;
} widths;
static const widths W[] = {
    {"default", 13, 11, 10, 11},
    {"small", 7, 7, 6, 7},
    {"batch2", 13, 10, 10, 10},
};

/* Parse text (must succeed). */
static void parse_ok(const char *text, const ovta_config *cfg, ovta_program *p) {
  ovta_error err;
  ovta_asm_diag diag;
  int rc = ovta_asm_parse(text, "t.s", cfg, p, &diag, &err);
  if (rc) fail_msg("parse failed: %s\n%s", err.msg, diag.context);
}

/* Width of a field for a config, from the hand table (fixed widths from isa/ISA.md). */
static int field_width(const widths *w, const char *fmt, const char *field) {
  static const struct {
    const char *f;
    int bits;
  } fixed[] = {{"pop_prev", 1}, {"pop_next", 1},  {"push_prev", 1}, {"push_next", 1}, {"memory_type", 3},
               {"sram_base", 16}, {"dram_base", 32}, {"y_size", 16},  {"x_size", 16},   {"x_stride", 16},
               {"y_pad_0", 4},  {"y_pad_1", 4},   {"x_pad_0", 4},   {"x_pad_1", 4},   {"reset", 1},
               {"iter_out", 14}, {"iter_in", 14},  {"overlap", 1}, {"alu_opcode", 3}, {"use_imm", 1},  {"imm", 16}};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (!strcmp(fixed[i].f, field)) return fixed[i].bits;
  if (!strcmp(field, "uop_bgn")) return w->uop;
  if (!strcmp(field, "uop_end")) return w->uop + 1;
  if (!strncmp(field, "dst_", 4)) return w->acc;
  if (!strncmp(field, "wgt_", 4)) return w->wgt;
  if (!strncmp(field, "src_", 4)) return strcmp(fmt, "gemm") ? w->acc : w->inp; /* ALU src is ACC */
  fail_msg("no hand width for %s.%s", fmt, field);
  return 0;
}

/* Assemble one line, encode, decode the bytes, print: must give the line back. */
static void line_roundtrip(const ovta_config *cfg, const char *line) {
  ovta_program p, q;
  parse_ok(line, cfg, &p);
  assert_int_equal(p.n_insns, 1);
  uint8_t bytes[16];
  ovta_error err;
  OVTA_ASSERT_OK(ovta_program_encode(&p, NULL, bytes, &err), err);
  OVTA_ASSERT_OK(ovta_disasm_binary(&p.isa, bytes, 16, "t.bin", &q, &err), err);
  assert_int_equal(q.n_insns, 1);
  char back[1024];
  ovta_insn_format(&q.insns[0].insn, NULL, back, sizeof back);
  assert_string_equal(back, line);
  ovta_program_free(&p);
  ovta_program_free(&q);
}

/* For every config, format and field: the field at its largest value, at 1, and (signed) at its
 * smallest, all other fields 0, round-trips; one more than the largest is rejected. */
static void test_every_field_roundtrips(void **state) {
  (void)state;
  static const char *ops[] = {"LOAD", "STORE", "GEMM", "ALU", "FINISH"};
  for (size_t c = 0; c < sizeof W / sizeof W[0]; c++) {
    ovta_config cfg;
    ovta_test_config(W[c].name, &cfg);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      int op = ovta_opcode_from_name(ops[o]);
      int fmt = ovta_format_of_opcode((uint32_t)op);
      int n;
      const ovta_field_spec *s = ovta_format_specs((ovta_format)fmt, &n);
      const char *fname = ovta_format_name((ovta_format)fmt);
      int nfields = 0;
      for (int f = 0; f < n; f++) {
        if (!s[f].name || !strcmp(s[f].name, "opcode")) continue;
        nfields++;
        int w = field_width(&W[c], fname, s[f].name);
        bool is_imm = !strcmp(s[f].name, "imm");
        long long vals[3] = {is_imm ? (1ll << (w - 1)) - 1 : (1ll << w) - 1, 1, is_imm ? -(1ll << (w - 1)) : 0};
        for (int v = 0; v < 3; v++) {
          char line[1024];
          int len = snprintf(line, sizeof line, "%s", ops[o]);
          for (int g = 0; g < n; g++) {
            if (!s[g].name || !strcmp(s[g].name, "opcode")) continue;
            long long x = g == f ? vals[v] : 0;
            if (x == 0 && !strcmp(s[g].name, "overlap")) continue; /* disasm prints overlap only when set */
            if (!strcmp(s[g].name, "memory_type") && x < OVTA_MEM_COUNT)
              len += snprintf(line + len, sizeof line - (size_t)len, " %s=%s", s[g].name, ovta_mem_type_names[x]);
            else if (!strcmp(s[g].name, "alu_opcode") && x < OVTA_ALU_COUNT)
              len += snprintf(line + len, sizeof line - (size_t)len, " %s=%s", s[g].name, ovta_alu_op_names[x]);
            else len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lld", s[g].name, x);
          }
          line_roundtrip(&cfg, line);
        }
        /* one past the largest value */
        char bad[256];
        long long over = is_imm ? 1ll << (w - 1) : 1ll << w;
        snprintf(bad, sizeof bad, "%s %s=%lld", ops[o], s[f].name, over);
        ovta_program p;
        ovta_error err;
        assert_int_equal(ovta_asm_parse(bad, "t.s", &cfg, &p, NULL, &err), OVTA_EPARSE);
        char expect[128];
        snprintf(expect, sizeof expect, "t.s:1:%d: %s=%lld does not fit in %d", (int)(strlen(ops[o]) + strlen(s[f].name) + 3),
                 s[f].name, over, w);
        if (!strstr(err.msg, expect)) fail_msg("%s: expected '%s' in '%s'", bad, expect, err.msg);
      }
      /* the number of fields is the hand count of isa/ISA.md's table, without opcode (with overlap) */
      int expect_fields = op == OVTA_OP_FINISH ? 4 : fmt == OVTA_FMT_MEM ? 14 : fmt == OVTA_FMT_GEMM ? 16 : 17;
      assert_int_equal(nfields, expect_fields);
    }
    /* micro-ops: largest values */
    char text[256];
    snprintf(text, sizeof text, ".buffer u 8\n.uops u\nuop dst_idx=%d src_idx=%d wgt_idx=%d\nuop src_idx=1\n",
             (1 << W[c].acc) - 1, (1 << (W[c].inp > W[c].acc ? W[c].inp : W[c].acc)) - 1, (1 << W[c].wgt) - 1);
    ovta_program p;
    parse_ok(text, &cfg, &p);
    uint32_t w0 = (uint32_t)p.bufs[0].init[0] | (uint32_t)p.bufs[0].init[1] << 8 |
                  (uint32_t)p.bufs[0].init[2] << 16 | (uint32_t)p.bufs[0].init[3] << 24;
    int src = W[c].inp > W[c].acc ? W[c].inp : W[c].acc;
    uint64_t all = (1ull << (W[c].acc + src + W[c].wgt)) - 1; /* every field bit set */
    assert_int_equal(w0, (uint32_t)all);
    assert_int_equal(p.bufs[0].init[4], 1u << W[c].acc & 0xff);
    char *out = ovta_test_program_text(&p);
    assert_non_null(strstr(out, ".uops u+0\n"));
    char line[128];
    snprintf(line, sizeof line, "uop dst_idx=%d src_idx=%d wgt_idx=%d\nuop dst_idx=0 src_idx=1 wgt_idx=0\n",
             (1 << W[c].acc) - 1, (1 << src) - 1, (1 << W[c].wgt) - 1);
    assert_non_null(strstr(out, line));
    free(out);
    ovta_program_free(&p);
  }
}

/* Lines written by hand assemble to words computed by hand (default config, isa/ISA.md table). */
static void test_known_words(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_test_config("default", &cfg);
  static const char *text =
      "# comment line\n"
      "LOAD memory_type=INP sram_base=37 dram_base=0xdeadbe y_size=7 x_size=9 x_stride=300 "
      "y_pad_0=1 y_pad_1=2 x_pad_0=3 x_pad_1=15 pop_next=1 push_next=1   # trailing comment\n"
      "\n"
      "   alu alu_opcode=shr use_imm=1 imm=-3 uop_bgn=1 uop_end=2 iter_out=1 iter_in=1\n"
      "FINISH pop_next=1\n"
      "STORE memory_type=4 x_size=0b101 push_prev=1\n"
      "GEMM reset=1 uop_end=8192 iter_in=8192 wgt_factor_in=512 src_factor_out=2047\n";
  ovta_program p;
  parse_ok(text, &cfg, &p);
  assert_int_equal(p.n_insns, 5);
  assert_int_equal(p.insns[0].line, 2);
  assert_int_equal(p.insns[1].line, 4);
  uint8_t b[5 * 16];
  ovta_error err;
  OVTA_ASSERT_OK(ovta_program_encode(&p, NULL, b, &err), err);
  uint64_t expect[5][2] = {
      {0ull | 1ull << 4 | 1ull << 6 | 2ull << 7 | 37ull << 10 | 0xdeadbeull << 26,
       7ull | 9ull << 16 | 300ull << 32 | 1ull << 48 | 2ull << 52 | 3ull << 56 | 15ull << 60},
      {4ull | 1ull << 8 | 2ull << 21 | 1ull << 35 | 1ull << 49, 3ull << 44 | 1ull << 47 | 0xfffdull << 48},
      {3ull | 1ull << 4, 0},
      {1ull | 1ull << 5 | 4ull << 7, 5ull << 16},
      {2ull | 1ull << 7 | 8192ull << 21 | 8192ull << 49, 2047ull << (86 - 64) | 512ull << (118 - 64)},
  };
  for (int i = 0; i < 5; i++) {
    ovta_insn_bits bits;
    ovta_insn_bits_load(b + 16 * i, &bits);
    if (bits.w[0] != expect[i][0] || bits.w[1] != expect[i][1])
      fail_msg("instruction %d: got %016llx %016llx, expected %016llx %016llx", i, (unsigned long long)bits.w[1],
               (unsigned long long)bits.w[0], (unsigned long long)expect[i][1], (unsigned long long)expect[i][0]);
  }
  /* little-endian bytes: byte 0 is the low byte of word 0 */
  assert_int_equal(b[16 * 2], 0x13);
  ovta_program_free(&p);

  /* the default micro-op layout: dst [10:0], src [21:11], wgt [31:22] */
  parse_ok(".buffer u 4\n.uops u\nuop dst_idx=2047 src_idx=1 wgt_idx=1023\n", &cfg, &p);
  assert_int_equal(p.bufs[0].init[0], 0xff);
  assert_int_equal(p.bufs[0].init[1], 0x0f);
  assert_int_equal(p.bufs[0].init[2], 0xc0);
  assert_int_equal(p.bufs[0].init[3], 0xff);
  ovta_program_free(&p);
}

/* dram_base=@NAME+N is element addr(NAME)/elem_bytes + N, in the instruction's memory type. */
static void test_symbols(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_test_config("default", &cfg);
  ovta_program p;
  parse_ok(".buffer a 64\n.buffer w 300\n.buffer x 16\n"
           "LOAD memory_type=WGT dram_base=@w+3 x_size=1\n"
           "LOAD memory_type=INP dram_base=@w+3\n"
           "STORE memory_type=OUT dram_base=@x\n"
           "LOAD memory_type=ACC dram_base=@a+0x10\n",
           &cfg, &p);
  assert_int_equal(p.insns[0].dram_buf, 1);
  uint64_t addr[3];
  ovta_program_layout(&p, 0, addr); /* 0, 4096, 8192 */
  assert_int_equal(addr[0], 0);
  assert_int_equal(addr[1], 4096);
  assert_int_equal(addr[2], 8192);
  uint8_t b[4 * 16];
  ovta_error err;
  OVTA_ASSERT_OK(ovta_program_encode(&p, addr, b, &err), err);
  uint32_t want[4] = {4096 / 256 + 3, 4096 / 16 + 3, 8192 / 16, 0 + 16};
  for (int i = 0; i < 4; i++) {
    ovta_insn_bits bits;
    ovta_insn_bits_load(b + 16 * i, &bits);
    assert_int_equal((bits.w[0] >> 26) & 0xffffffffull, want[i]);
  }
  /* a base that is not a multiple of the element size is an error naming the line */
  uint64_t bad[3] = {0, 4096 + 64, 8192};
  assert_int_equal(ovta_program_encode(&p, bad, b, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "t.s:4: buffer 'w' at 0x1040 is not aligned to WGT elements of 256 bytes"));
  /* beyond 32 bits */
  uint64_t far[3] = {0, 256ull << 32, 8192};
  assert_int_equal(ovta_program_encode(&p, far, b, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "t.s:4: dram_base=@w+3 resolves to"));
  assert_int_equal(ovta_program_align(&p), 256);
  char *out = ovta_test_program_text(&p);
  assert_non_null(strstr(out, "memory_type=WGT sram_base=0 dram_base=@w+3 y_size=0"));
  assert_non_null(strstr(out, "dram_base=@a+16 "));
  free(out);
  ovta_program_free(&p);
}

/* Every error kind: message, line:col, and a caret under the offending token. */
static void test_errors(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_test_config("small", &cfg);
  static const struct {
    const char *text;
    const char *msg; /* expected in err.msg, after "t.s:" */
    int line, col, len;
  } cases[] = {
      {"LOAD x_sise=1\n", "1:6: unknown field 'x_sise' for LOAD", 1, 6, 6},
      {"\n\n  LOAD x_size=1 x_sise=3\n", "3:17: unknown field 'x_sise' for LOAD", 3, 17, 6},
      {"LOAD x_size=1 x_size=2", "1:15: field 'x_size' given twice", 1, 15, 6},
      {"LOAD x_size", "1:6: expected name=value, got 'x_size'", 1, 6, 6},
      {"LOAD x_size=", "1:6: field 'x_size' has no value", 1, 6, 7},
      {"LOAD x_size=12a", "1:13: bad value '12a' for field 'x_size': expected a number", 1, 13, 3},
      {"LOAD x_size=-1", "1:13: x_size=-1 does not fit in 16 bits [0, 65535]", 1, 13, 2},
      {"ALU imm=40000", "1:9: imm=40000 does not fit in 16 signed bits [-32768, 32767]", 1, 9, 5},
      {"GEMM uop_bgn=128", "1:14: uop_bgn=128 does not fit in 7 bits [0, 127]", 1, 14, 3},
      {"LOAD memory_type=FOO", "1:18: unknown memory_type 'FOO' (one of UOP, WGT, INP, ACC, OUT, or a number)", 1, 18, 3},
      {"ALU alu_opcode=DIV", "1:16: unknown alu_opcode 'DIV'", 1, 16, 3},
      {"LOAD opcode=1", "1:6: the opcode is given by the mnemonic", 1, 6, 6},
      {"FINISH reset=1", "1:8: unknown field 'reset' for FINISH", 1, 8, 5},
      {"JUMP x=1", "1:1: unknown instruction 'JUMP'", 1, 1, 4},
      {".text", "1:1: unknown directive '.text'", 1, 1, 5},
      {"LOAD dram_base=@nope", "1:17: unknown buffer 'nope'", 1, 17, 4},
      {".buffer b 8\nLOAD dram_base=@b+x", "2:19: bad offset 'x'", 2, 19, 1},
      {".buffer b 8\nLOAD sram_base=@b", "2:16: only dram_base can refer to a buffer, not 'sram_base'", 2, 16, 2},
      {".buffer b 8\n.buffer b 4", "2:9: buffer 'b' declared twice", 2, 9, 1},
      {".buffer 9b 8", "1:9: bad buffer name '9b'", 1, 9, 2},
      {".buffer b 0", "1:11: bad buffer size '0'", 1, 11, 1},
      {".buffer b", "1:1: .buffer takes a name and a size in bytes", 1, 1, 7},
      {".buffer b 4\n.int8 b+2 1 2 3", "2:7: bytes [2, 5) are outside buffer 'b' of 4 bytes", 2, 7, 9},
      {".buffer b 4\n.int8 b 1 300", "2:11: 300 does not fit in a byte", 2, 11, 3},
      {".buffer b 8\n.int32 b 4294967296", "2:10: 4294967296 does not fit in 32 bits", 2, 10, 10},
      {".buffer b 8\n.hex b 0a0", "2:8: bad hex bytes '0a0'", 2, 8, 3},
      {".buffer b 8\n.hex b zz", "2:8: bad hex bytes 'zz'", 2, 8, 2},
      {"uop dst_idx=1", "1:1: uop line before any .uops directive", 1, 1, 3},
      {".buffer u 4\n.uops u\nuop dst_idx=1\nuop dst_idx=2", "4:1: bytes [4, 8) are outside buffer 'u' of 4 bytes", 4, 1, 3},
      {".buffer u 4\n.uops u\nuop wgt_idx=64", "3:13: wgt_idx=64 does not fit in 6 bits [0, 63]", 3, 13, 2},
      {".buffer u 4\n.uops u\nuop x=1", "3:5: unknown field 'x' for uop", 3, 5, 1},
      {"FINISH\n.config small", "2:1: .config must come before every other directive and instruction", 2, 1, 7},
      {".config nosuch", "1:9: no hardware config named 'nosuch'", 1, 9, 6},
      {".config small\n.config small", "2:1: .config given twice", 2, 1, 7},
      {".buffer b 16\n.insns b+8", "2:8: the instruction stream must start at a multiple of 16 bytes", 2, 8, 3},
      {".buffer b 16\n.insns b\nFINISH\nFINISH", "2:8: 2 instructions (32 bytes) at offset 0 do not fit buffer 'b' of 16 bytes", 2, 8, 1},
      {".buffer b 16\n.insns b\n.insns b", "3:1: .insns given twice (first on line 2)", 3, 1, 6},
      {".buffer b 16\n.dump b 17", "2:9: bytes [0, 17) are outside buffer 'b' of 16 bytes", 2, 9, 2},
      {".buffer b 16\n.dump b 6 int32", "2:9: an int32 dump needs a length that is a multiple of 4", 2, 9, 1},
      {".buffer b 16\n.dump b 4 float", "2:11: unknown dump format 'float'", 2, 11, 5},
      {".buffer b 16\n.dump b 0", "2:9: bad length '0'", 2, 9, 1},
      {"LOAD x_size=99999999999999999999", "1:13: bad value '99999999999999999999'", 1, 13, 20},
      {"FINISH \x01", "1:8: control character 0x01", 1, 8, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ovta_program p;
    ovta_error err;
    ovta_asm_diag diag;
    int rc = ovta_asm_parse(cases[i].text, "t.s", &cfg, &p, &diag, &err);
    if (rc == OVTA_OK) fail_msg("case %zu: '%s' parsed", i, cases[i].text);
    char expect[256];
    snprintf(expect, sizeof expect, "t.s:%s", cases[i].msg);
    if (strncmp(err.msg, expect, strlen(expect))) fail_msg("case %zu: expected '%s', got '%s'", i, expect, err.msg);
    assert_int_equal(diag.line, cases[i].line);
    assert_int_equal(diag.col, cases[i].col);
    /* the caret line: "      | " then col-1 spaces, '^' and len-1 '~' */
    const char *caret = strchr(diag.context, '\n');
    assert_non_null(caret);
    char want[256];
    int n = snprintf(want, sizeof want, "\n      | %*s^", cases[i].col - 1, "");
    for (int k = 1; k < cases[i].len; k++) want[n++] = '~';
    want[n++] = '\n';
    want[n] = 0;
    if (strcmp(caret, want)) fail_msg("case %zu: caret\n%s\nexpected\n%s", i, diag.context, want + 1);
    /* the source line is shown */
    char src[64];
    snprintf(src, sizeof src, "%5d | ", cases[i].line);
    assert_int_equal(strncmp(diag.context, src, strlen(src)), 0);
    assert_int_equal(p.n_insns, 0);
    assert_null(p.insns);
  }
}

/* A whole program prints to text that parses to the same program and prints the same again. */
static void test_program_roundtrip(void **state) {
  (void)state;
  static const char *text = ".config batch2\n"
                            ".buffer uops 64\n"
                            ".buffer data 64   # inputs\n"
                            ".buffer code 256\n"
                            ".int8 data 1 -2 255 0x10\n"
                            ".int32 data+8 -2 65536\n"
                            ".hex data+16 00ff 7f80\n"
                            ".uops uops+8\n"
                            "uop dst_idx=1 src_idx=2 wgt_idx=3\n"
                            "uop dst_idx=4\n"
                            ".insns code+32\n"
                            "LOAD memory_type=UOP dram_base=@uops+2 y_size=1 x_size=2 x_stride=2\n"
                            "FINISH\n"
                            ".dump data+4 8 hex\n"
                            ".dump data 16\n";
  ovta_program p, q;
  parse_ok(text, NULL, &p);
  assert_string_equal(p.isa.cfg.name, "batch2");
  assert_int_equal(p.n_bufs, 3);
  const uint8_t *d = p.bufs[1].init;
  uint8_t want[22] = {1, 0xfe, 0xff, 0x10, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 0, 1, 0, 0, 0xff, 0x7f, 0x80, 0, 0};
  assert_memory_equal(d, want, sizeof want);
  /* uop 1: dst 1 | src 2 << 10 | wgt 3 << 20 (batch2: acc 10 bits, src 10 bits) at byte 8 */
  uint32_t u = 1u | 2u << 10 | 3u << 20;
  assert_int_equal(p.bufs[0].init[8] | p.bufs[0].init[9] << 8 | p.bufs[0].init[10] << 16 | p.bufs[0].init[11] << 24, u);
  assert_int_equal(p.bufs[0].init[12], 4);
  assert_int_equal(p.insn_buf, 2);
  assert_int_equal(p.insn_off, 32);
  assert_int_equal(p.n_dumps, 2);
  assert_int_equal(p.dumps[0].kind, OVTA_DATA_HEX);
  assert_int_equal(p.dumps[1].kind, OVTA_DATA_INT8);
  char *t1 = ovta_test_program_text(&p);
  parse_ok(t1, NULL, &q);
  char *t2 = ovta_test_program_text(&q);
  assert_string_equal(t1, t2);
  for (size_t i = 0; i < p.n_bufs; i++) assert_memory_equal(p.bufs[i].init, q.bufs[i].init, p.bufs[i].size);
  assert_memory_equal(&p.insns[0].insn, &q.insns[0].insn, sizeof(ovta_insn));
  assert_non_null(strstr(t1, ".config batch2\n.buffer uops 64\n"));
  assert_non_null(strstr(t1, ".int32 data+8 -2 65536\n"));
  assert_non_null(strstr(t1, ".hex data+16 00ff7f80\n"));
  assert_non_null(strstr(t1, ".insns code+32\n"));
  assert_non_null(strstr(t1, ".dump data+4 8 hex\n.dump data+0 16 int8\n"));
  free(t1);
  free(t2);
  ovta_program_free(&p);
  ovta_program_free(&q);
}

/* A binary stream: decode errors name the instruction index and byte offset. */
static void test_disasm_binary(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_test_config("default", &cfg);
  ovta_isa isa;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_isa_init(&isa, &cfg, &err), err);
  uint8_t b[48] = {0};
  b[0] = 3;           /* FINISH */
  b[16] = 3;          /* FINISH with reserved bit 7 set */
  b[16] |= 0x80;
  b[32] = 3;
  ovta_program p;
  assert_int_equal(ovta_disasm_binary(&isa, b, 48, "x.bin", &p, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "x.bin: instruction 1 (byte offset 16): FINISH: reserved bit 7 is set"));
  assert_int_equal(ovta_disasm_binary(&isa, b, 40, "x.bin", &p, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "x.bin: 40 bytes is not a whole number of 16-byte instructions (8 bytes left over at byte offset 32)"));
  b[16] = 7; /* unknown opcode */
  assert_int_equal(ovta_disasm_binary(&isa, b, 32, "x.bin", &p, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "instruction 1 (byte offset 16): unknown opcode 7"));
  b[16] = 0x13; /* FINISH pop_next */
  b[40] = 0x5;  /* word 1 of instruction 2: reserved in FINISH */
  assert_int_equal(ovta_disasm_binary(&isa, b, 48, "x.bin", &p, &err), OVTA_EINSN);
  assert_non_null(strstr(err.msg, "instruction 2 (byte offset 32): FINISH: reserved bit 64 is set"));
  OVTA_ASSERT_OK(ovta_disasm_binary(&isa, b, 32, "x.bin", &p, &err), err);
  char *t = ovta_test_program_text(&p);
  assert_string_equal(t, ".config default\n"
                         "FINISH pop_prev=0 pop_next=0 push_prev=0 push_next=0\n"
                         "FINISH pop_prev=0 pop_next=1 push_prev=0 push_next=0\n");
  free(t);
  ovta_program_free(&p);
  /* an undecodable-but-named value prints as a number and assembles back */
  ovta_insn in = {.opcode = OVTA_OP_LOAD, .memory_type = 6};
  char line[512];
  ovta_insn_format(&in, NULL, line, sizeof line);
  assert_non_null(strstr(line, " memory_type=6 "));
}

static void test_dump_print(void **state) {
  (void)state;
  uint8_t x[20];
  for (int i = 0; i < 20; i++) x[i] = (uint8_t)(250 + i);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ovta_dump_print(f, "out", 4, x, 20, OVTA_DATA_INT8);
  ovta_dump_print(f, "acc", 0, x, 8, OVTA_DATA_INT32);
  ovta_dump_print(f, "h", 0, x, 3, OVTA_DATA_HEX);
  fclose(f);
  assert_string_equal(buf, "out+4: -6 -5 -4 -3 -2 -1 0 1 2 3 4 5 6 7 8 9\n"
                           "out+20: 10 11 12 13\n"
                           "acc+0: -33752070 16842750\n" /* 0xfdfcfbfa - 2^32; 0x0100fffe */
                           "h+0: fa fb fc\n");
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_field_roundtrips), cmocka_unit_test(test_known_words),
      cmocka_unit_test(test_symbols),                cmocka_unit_test(test_errors),
      cmocka_unit_test(test_program_roundtrip),      cmocka_unit_test(test_disasm_binary),
      cmocka_unit_test(test_dump_print),
  };
  return cmocka_run_group_tests_name("isa assembler", tests, NULL, NULL);
}
