/* Tests of the random program generator (tests/gen/randprog.h) and the determinism proof of its
 * dependency tokens: for every config, RANDPROG_SEEDS programs (default 200) are run on every
 * backend spec of OVTA_DIFF_BACKENDS (default "fsim,fsim-interleaved": fsim in fixed order and
 * with three interleaving seeds) and each run's output buffer and counters must equal the
 * sequential reference interpreter's (an independent implementation of isa/ISA.md in
 * randprog.c), byte for byte. A mismatch prints its seed and saves the program as
 * build/randprog-fail/CONFIG-SEED.s (`ovta sim` reproduces it). */
#include "ovta_test.h"

#include "randprog.h"

static void diff_config(const char *config) {
  int bad = 0;
  for (int s = 1; s <= ovta_test_env_int("RANDPROG_SEEDS", 200); s++) {
    char why[1024];
    int rc = rp_diff(config, NULL, (uint64_t)s, rp_diff_backends(), "build/randprog-fail", why, sizeof why);
    if (rc) {
      print_error("MISMATCH config %s seed %d: %s\n", config, s, why);
      if (++bad >= 5 || rc < 0) break;
    }
  }
  if (bad) fail_msg("%d program(s) of config %s differ (seeds above)", bad, config);
}

static void diff_small(void **st) { diff_config("small"); }
static void diff_default(void **st) { diff_config("default"); }
static void diff_batch2(void **st) { diff_config("batch2"); }

/* The same seed gives the same program, other seeds other programs; every program uses each
 * kind of instruction somewhere over a few seeds. */
static void generation_is_deterministic(void **st) {
  ovta_isa isa;
  ovta_test_isa("small", &isa);
  ovta_error err;
  char *prev = NULL;
  int seen[8] = {0}, pads = 0, strided = 0, tokens = 0;
  for (uint64_t s = 1; s <= 40; s++) {
    ovta_program a, b;
    OVTA_ASSERT_OK(rp_generate(&isa, NULL, s, &a, &err), err);
    OVTA_ASSERT_OK(rp_generate(&isa, NULL, s, &b, &err), err);
    char *ta = ovta_test_program_text(&a), *tb = ovta_test_program_text(&b);
    assert_string_equal(ta, tb);
    if (prev) assert_string_not_equal(prev, ta);
    for (size_t i = 0; i < a.n_insns; i++) {
      const ovta_insn *in = &a.insns[i].insn;
      seen[in->opcode]++;
      pads += in->opcode == OVTA_OP_LOAD && (in->x_pad_0 || in->x_pad_1 || in->y_pad_0 || in->y_pad_1);
      strided += in->opcode <= OVTA_OP_STORE && in->y_size > 1 && in->x_stride != in->x_size;
      tokens += in->pop_prev + in->pop_next + in->push_prev + in->push_next;
    }
    free(prev);
    free(tb);
    prev = ta;
    ovta_program_free(&a);
    ovta_program_free(&b);
  }
  free(prev);
  for (int op = 0; op < OVTA_OP_COUNT; op++) assert_true(seen[op] > 0);
  assert_true(pads > 0);
  assert_true(strided > 0);
  assert_true(tokens > 0);
}

/* A generated program printed as text and parsed back is the same program: it runs to the same
 * bytes as the original's reference, and prints to the same text again (a saved failing seed
 * is a faithful regression file). */
static void text_round_trip(void **st) {
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_isa isa;
    ovta_test_isa(*cf, &isa);
    for (uint64_t s = 1; s <= 10; s++) {
      ovta_program p, q;
      ovta_error err;
      OVTA_ASSERT_OK(rp_generate(&isa, NULL, s, &p, &err), err);
      char *t1 = ovta_test_program_text(&p);
      ovta_asm_diag diag;
      OVTA_ASSERT_OK(ovta_asm_parse(t1, "gen.s", NULL, &q, &diag, &err), err);
      char *t2 = ovta_test_program_text(&q);
      assert_string_equal(t1, t2);
      rp_result want, got;
      char why[300];
      OVTA_ASSERT_OK(rp_reference(&p, &want, &err), err);
      OVTA_ASSERT_OK(rp_run("fsim", 0, &q, 60000, &got, &err), err);
      if (rp_compare(&want, &got, why, sizeof why) > 0) fail_msg("%s seed %llu: %s", *cf, (unsigned long long)s, why);
      assert_true(want.ctr.insns_load + want.ctr.insns_compute + want.ctr.insns_store == q.n_insns);
      rp_result_free(&want);
      rp_result_free(&got);
      free(t1);
      free(t2);
      ovta_program_free(&p);
      ovta_program_free(&q);
    }
  }
}

/* The differential test can fail: the same programs without their tokens give different bytes
 * under some interleavings (and the harness reports it), while with tokens they never do. */
static void missing_tokens_are_detected(void **st) {
  rp_opts o;
  rp_opts_default(&o);
  o.no_tokens = true;
  int caught = 0;
  for (uint64_t s = 1; s <= 40; s++) {
    char why[1024];
    int rc = rp_diff("small", &o, s, "fsim-interleaved,fsim@7,fsim@99", NULL, why, sizeof why);
    assert_true(rc >= 0);
    caught += rc == 1;
  }
  print_message("programs without tokens caught: %d of 40\n", caught);
  assert_true(caught >= 10);
}

/* The reference and fsim agree with hand-computed values on a tiny program (the reference is
 * itself tested, not only compared). */
static void reference_by_hand(void **st) {
  const char *text =
      ".config small\n"
      ".buffer uops 8\n.buffer inp 8\n.buffer wgt 64\n.buffer acc 32\n.buffer out 16\n"
      ".uops uops\nuop dst_idx=0 src_idx=0 wgt_idx=0\nuop dst_idx=1 src_idx=1 wgt_idx=0\n"
      ".int8 inp 1 2 3 4 5 6 7 8\n"
      ".int8 wgt+0  1 1 1 1 1 1 1 1  2 2 2 2 2 2 2 2\n.int8 wgt+16 3 3 3 3 3 3 3 3  4 4 4 4 4 4 4 4\n"
      ".int8 wgt+32 5 5 5 5 5 5 5 5  6 6 6 6 6 6 6 6\n.int8 wgt+48 7 7 7 7 7 7 7 7  8 8 8 8 8 8 8 8\n"
      ".int32 acc 1 -1 1000 -1000 7 -7 300 -300\n"
      "LOAD memory_type=UOP dram_base=@uops y_size=1 x_size=2 x_stride=2\n"
      "LOAD memory_type=INP dram_base=@inp y_size=1 x_size=1 x_stride=1\n"
      "LOAD memory_type=WGT dram_base=@wgt y_size=1 x_size=1 x_stride=1 push_next=1\n"
      "LOAD memory_type=ACC sram_base=1 dram_base=@acc y_size=1 x_size=1 x_stride=1\n"
      "GEMM reset=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
      "GEMM pop_prev=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
      "ALU uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 alu_opcode=SHR use_imm=1 imm=2 push_next=1\n"
      "STORE memory_type=OUT dram_base=@out y_size=1 x_size=2 x_stride=2 pop_prev=1\n"
      "FINISH\n"
      ".dump out 16 int8\n";
  ovta_program p;
  ovta_error err;
  ovta_asm_diag diag;
  OVTA_ASSERT_OK(ovta_asm_parse(text, "hand.s", NULL, &p, &diag, &err), err);
  rp_result want, got;
  OVTA_ASSERT_OK(rp_reference(&p, &want, &err), err);
  /* y[o] = 36*(o+1) (low 8 bits); acc >> 2 = 0 -1 250 -250 1 -2 75 -75 (floor) */
  const int8_t expect[16] = {36, 72, 108, -112, -76, -40, -4, 32, 0, -1, -6, 6, 1, -2, 75, -75};
  assert_int_equal(want.len, 16);
  assert_memory_equal(want.bytes, expect, 16);
  assert_int_equal(want.ctr.gemm_uops, 2);
  assert_int_equal(want.ctr.alu_uops, 1);
  OVTA_ASSERT_OK(rp_run("fsim", 0, &p, 10000, &got, &err), err);
  char why[300];
  if (rp_compare(&want, &got, why, sizeof why) > 0) fail_msg("%s", why);
  rp_result_free(&want);
  rp_result_free(&got);
  ovta_program_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_by_hand),
      cmocka_unit_test(generation_is_deterministic),
      cmocka_unit_test(text_round_trip),
      cmocka_unit_test(missing_tokens_are_detected),
      cmocka_unit_test(diff_small),
      cmocka_unit_test(diff_default),
      cmocka_unit_test(diff_batch2),
  };
  return cmocka_run_group_tests_name("randprog", tests, NULL, NULL);
}
