/* randprog.h: a generator of random VALID ovta programs, a sequential reference interpreter, and
 * a differential runner (any backend pair against the reference and against each other).
 *
 * Sections:
 *   1. Generator  - rp_generate: config + seed -> ovta_program (isa/ovta_isa.h), printable in the
 *                   assembler text form (ovta_program_write) as a self-contained regression file.
 *   2. Reference  - rp_reference: executes a program in stream order (isa/ISA.md, written out
 *                   independently of hw/sim/fsim.c) -> expected dump bytes and counters.
 *   3. Runner     - rp_run: a program on a backend through the driver (tools/ovta/load.c).
 *   4. Diff       - rp_diff: one seed on a list of backend specs (OVTA_DIFF_BACKENDS).
 *
 * Program shape (isa/ISA.md "Machine"). T tiles; tile t is a group of load instructions (INP/WGT
 * into region t % RL of the INP and WGT SRAMs), a group of compute instructions (LOAD UOP, LOAD
 * ACC, GEMM, ALU on region t % RL of INP/WGT and t % RC of ACC/OUT) and a group of store
 * instructions (OUT region t % RC -> the `out` buffer). Tokens make the result deterministic:
 *   load t    pops C2L (t >= RL) at or before its first SRAM write; pushes L2C after its last;
 *   compute t pops L2C at or before its first INP/WGT read, pushes C2L (t+RL < T) after the last;
 *             pops S2C (t >= RC) at or before its first OUT write, pushes C2S after the last;
 *   store t   pops C2S at or before its first SRAM read, pushes S2C (t+RC < T) after the last.
 * Every pop's matching push is earlier in the stream and at most RL (RC) <= DEP_QUEUE_DEPTH tokens
 * are ever outstanding, so the earliest unretired instruction can always start: no deadlock under
 * any interleaving or CMD_QUEUE_DEPTH, and the stream order is one valid interleaving, which is
 * what rp_reference executes. Load groups are emitted up to LA < RL tiles ahead in the stream.
 * DRAM inputs (pools) and the output buffer are disjoint. With `hermetic` a prologue loads every
 * INP/WGT/ACC element and zeroes OUT, so the result does not depend on SRAM left by earlier runs.
 */
#ifndef OVTA_RANDPROG_H
#define OVTA_RANDPROG_H

#include "ovta_driver.h"

/* ---------------------------------------------------------------- 1. Generator */

typedef struct rp_opts {
  int max_tiles;  /* tiles (load/compute/store groups), at least 1 (default 6) */
  int max_loads;  /* LOADs per load group (default 3) */
  int max_ops;    /* GEMM/ALU per compute group (default 3) */
  int max_uops;   /* micro-ops per GEMM/ALU (default 6) */
  int max_iters;  /* iter_out * iter_in per GEMM/ALU (default 24) */
  int max_stores; /* STOREs per store group (default 3) */
  bool hermetic;  /* prologue that defines every SRAM element (default true) */
  bool no_tokens; /* drop every dependency bit: a WRONG program, for testing that the
                     differential test notices missing tokens (default false) */
} rp_opts;

void rp_opts_default(rp_opts *o);

/* Generate the program of `seed` for isa into *out (ovta_program_free it). The buffers are
 * "inp", "wgt", "acc", "uop" (pools the loads read, random data), and "out" (random initial
 * data, written by the stores, dumped by the program's one .dump directive). */
int rp_generate(const ovta_isa *isa, const rp_opts *o, uint64_t seed, ovta_program *out, ovta_error *err);

/* ---------------------------------------------------------------- 2. Reference */

/* What a run gives: the bytes of every .dump of the program, concatenated, and the counters. */
typedef struct rp_result {
  uint8_t *bytes;    /* malloc'd */
  size_t len;
  ovta_counters ctr; /* cycle fields are not compared */
} rp_result;

void rp_result_free(rp_result *r);

/* Execute p sequentially in stream order on zeroed SRAMs (a fresh device). Every dram_base must
 * name a buffer (dram_buf >= 0). Fails (OVTA_EINSN) on anything a valid program cannot do. */
int rp_reference(const ovta_program *p, rp_result *out, ovta_error *err);

/* ---------------------------------------------------------------- 3. Runner */

/* Open `backend` (opts.seed = interleave), load p (ovta_program_load), run, read the dumps. */
int rp_run(const char *backend, uint64_t interleave, const ovta_program *p, uint32_t timeout_ms,
           rp_result *out, ovta_error *err);
/* The same on an open device (its buffers are freed afterwards; SRAMs keep what the run left). */
int rp_run_dev(ovta_dev *dev, const ovta_program *p, uint32_t timeout_ms, rp_result *out, ovta_error *err);

/* First difference between two results: -1 when equal; else fills why[] and returns 1. */
int rp_compare(const rp_result *want, const rp_result *got, char *why, size_t cap);

/* ---------------------------------------------------------------- 4. Diff */

/* Backend specs, comma-separated: "fsim" (seed 0), "fsim-interleaved" (three interleaving seeds
 * derived from the program seed), "NAME" (any backend, seed 0), "NAME@N" (interleaving seed N),
 * "NAME=LIB" (NAME with $OVTA_TSIM_LIB=LIB for that run: another tsim model, e.g. the synthesized
 * netlist of hw/rtl/netlist.mk). A spec whose NAME and seed repeat an earlier spec's (e.g.
 * "tsim,tsim=LIB") must also match that run's cycle counters: a second model of the same RTL is
 * cycle-exact. Default: env OVTA_DIFF_BACKENDS, else "fsim,fsim-interleaved". */
const char *rp_diff_backends(void);

/* Generate seed's program for config, compute the reference, run it on every spec, compare each
 * with the reference. Returns 0 when all agree; 1 on a mismatch or a failed run (message in
 * why, the program written to fail_dir/CONFIG-SEED.s when fail_dir is not NULL); -1 when the
 * generator or the reference failed (a bug in this file; why says so). */
int rp_diff(const char *config, const rp_opts *o, uint64_t seed, const char *specs, const char *fail_dir,
            char *why, size_t cap);

#endif
