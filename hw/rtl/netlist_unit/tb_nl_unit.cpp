// tb_nl_unit: drives tb_nl_unit.sv (the RTL unit and its netlist side by side) with the
// instructions of tests/gen/regress/netlist-small-16.s that reach compute (GEMM, ALU MIN), then
// an ALU MAX, and compares the OUT SRAM rows 0-22 of both (read through the store's port).
// Argument: 0 as the reproducer (WGT rows 7-14 written), 1 also INP row 0 written with zeros,
// 2 also WGT row 0 with zeros, 3 nothing written. Prints the rows that differ.
#include "Vtb_nl_unit.h"
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
typedef struct { uint32_t w[4]; } insn128;
static void put(insn128 *x, int lo, int width, uint64_t v) {
  for (int i = 0; i < width; i++) if ((v >> i) & 1) x->w[(lo + i) / 32] |= 1u << ((lo + i) % 32);
}
static insn128 gemm(int reset, int ub, int ue, int io, int ii, int dfo, int dfi, int sfo, int sfi, int wfo, int wfi) {
  insn128 x; memset(&x, 0, sizeof x);
  put(&x, 0, 3, 2); put(&x, 7, 1, reset); put(&x, 8, 7, ub); put(&x, 15, 8, ue); put(&x, 23, 14, io); put(&x, 37, 14, ii);
  put(&x, 64, 7, dfo); put(&x, 71, 7, dfi); put(&x, 78, 7, sfo); put(&x, 85, 7, sfi); put(&x, 92, 6, wfo); put(&x, 98, 6, wfi);
  return x;
}
static insn128 alu(int reset, int ub, int ue, int io, int ii, int dfo, int dfi, int sfo, int sfi, int op, int use_imm, int imm) {
  insn128 x; memset(&x, 0, sizeof x);
  put(&x, 0, 3, 4); put(&x, 7, 1, reset); put(&x, 8, 7, ub); put(&x, 15, 8, ue); put(&x, 23, 14, io); put(&x, 37, 14, ii);
  put(&x, 64, 7, dfo); put(&x, 71, 7, dfi); put(&x, 78, 7, sfo); put(&x, 85, 7, sfi); put(&x, 92, 3, op); put(&x, 95, 1, use_imm);
  put(&x, 96, 16, (uint16_t)imm);
  return x;
}
static Vtb_nl_unit *t; static long cyc; static int bad;
static void tick() {
  t->clk = 0; t->eval(); t->clk = 1; t->eval(); cyc++;
  if (t->pop_r != t->pop_n || t->ret_r != t->ret_n || t->err_r != t->err_n) { if (bad++ < 10) printf("cyc %ld ctl differs\n", cyc); }
}
static void run(insn128 x, uint32_t idx) {
  t->cmd[0] = x.w[0]; t->cmd[1] = x.w[1]; t->cmd[2] = x.w[2]; t->cmd[3] = x.w[3]; t->cmd[4] = idx;
  t->cmd_valid = 1;
  for (int i = 0; i < 1000; i++) { t->clk = 0; t->eval(); int p = t->pop_r; tick(); if (p) break; }
  t->cmd_valid = 0;
  for (int i = 0; i < 1000; i++) tick();
}
static void dump(const char *what) {
  int nb = 0;
  for (int r = 0; r < 23; r++) {
    t->out_re = 1; t->out_ra = r; tick(); t->out_re = 0; tick();
    if (t->out_r != t->out_n) { nb++; bad++; printf("%s row %d rtl %016llx nl %016llx\n", what, r, (unsigned long long)t->out_r, (unsigned long long)t->out_n); }
    else if (r < 3) printf("%s row %d both %016llx\n", what, r, (unsigned long long)t->out_r);
  }
  printf("%s: %d rows differ\n", what, nb);
}
int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  t = new Vtb_nl_unit; t->rst_n = 0; t->cmd_valid = 0; tick(); tick(); t->rst_n = 1; tick();
  /* LOAD WGT rows 7..14 (random), as the reproducer's LOAD */
  if (mode == 1) { t->inp_we = 1; t->ld_idx = 0; for (int w = 0; w < 16; w++) t->ld_data[w] = 0; tick(); t->inp_we = 0; }
  if (mode == 2) { t->wgt_we = 1; t->ld_idx = 0; for (int w = 0; w < 16; w++) t->ld_data[w] = 0; tick(); t->wgt_we = 0; }
  if (mode != 3) for (int r = 7; r < 15; r++) {
    t->wgt_we = 1; t->ld_idx = r;
    for (int w = 0; w < 16; w++) t->ld_data[w] = 0x9e3779b9u * (r * 16 + w + 1);
    tick();
  }
  t->wgt_we = 0; tick();
  insn128 g = gemm(0, 4, 7, 1, 23, 0, 1, 0, 0, 0, 0); put(&g, 3, 1, 1); /* pop_prev */
  run(g, 1);
  insn128 a = alu(0, 50, 53, 10, 1, 2, 0, 0, 0, 0 /*MIN*/, 1, -19440); put(&a, 6, 1, 1);
  run(a, 2);
  dump("after MIN");
  insn128 m = alu(0, 50, 53, 10, 1, 2, 0, 0, 0, 1 /*MAX*/, 1, -19440);
  run(m, 3);
  dump("after MAX");
  printf("cycles %ld bad %d\n", cyc, bad);
  return 0;
}
