/* Fuzz target: fsim through the driver. The input becomes a device config (byte 0: small,
 * default or batch2; byte 1: interleaving seed), then instructions: each takes one control byte
 * and 16 bytes. Control bit 7 set: the 16 bytes are raw instruction words (anything, reserved
 * bits included). Otherwise they fill the fields of the opcode (control & 7) modulo their widths
 * (valid encodings, invalid semantics welcome); dram_base points into one of four data buffers
 * (or just past it), loop counts are kept small unless control bit 6 is set. The run (bounded by
 * a work budget of FSIM_FUZZ_BUDGET units, ovta_dev_opts.work_budget: deterministic, unlike a
 * wall-clock timeout) must return OK or an error with a message; then the device must still run
 * a one-FINISH program. Leaks are LeakSanitizer's job.
 *
 * Speed: one device per config lives across inputs (opened at first use with its four data
 * buffers, closed at exit so LeakSanitizer still sees what a close leaves behind). Before an
 * input, ovta_fsim_reset zeroes its SRAMs and sets the input's seed, and the data buffers are
 * refilled whole; after it, the stream buffer is freed (freed DRAM reads as zero). So an input
 * gives what it gives on a freshly opened device, whatever ran before:
 * tests/fuzz/test_fsim_order.c checks this on the corpus in several orders. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_fsim.h"
#include "ovta_driver.h"

#define NBUF 4

/* A device and its data buffers (4 KiB each, refilled from every input). */
typedef struct fuzz_dev {
  ovta_dev *dev;      /* the device (NULL until first use) */
  ovta_buf *buf[NBUF];/* its data buffers, allocated right after the open */
} fuzz_dev;

static const char *const names[3] = {"small", "default", "batch2"};
static ovta_config cfgs[3];           /* the configs, loaded once */
static fuzz_dev devs[3];              /* the reused device of each config */
static uint64_t skip_mask[OVTA_FMT_COUNT]; /* per format: the fields an input does not fill (bit k) */
static uint64_t cap_mask[OVTA_FMT_COUNT];  /* per format: the loop counts kept small (bit k) */

static void close_devs(void) {
  for (int i = 0; i < 3; i++) ovta_dev_close(devs[i].dev), devs[i].dev = NULL;
}

/* Once: the configs and the field masks (no string compare per input). */
static void init(void) {
  ovta_error err = {0};
  for (int i = 0; i < 3; i++)
    if (ovta_config_load(names[i], &cfgs[i], &err)) abort();
  for (int f = 0; f < OVTA_FMT_COUNT; f++) {
    int ns;
    const ovta_field_spec *sp = ovta_format_specs((ovta_format)f, &ns);
    if (ns > 64) abort();
    for (int k = 0; k < ns; k++) {
      const char *n = sp[k].name;
      if (!n || !strcmp(n, "opcode")) skip_mask[f] |= 1ull << k;
      else if (!strcmp(n, "iter_out") || !strcmp(n, "iter_in") || !strcmp(n, "y_size")) cap_mask[f] |= 1ull << k;
    }
  }
}

/* Open a device of config c with the fuzz options (dev_seed: its interleaving seed) and its
 * data buffers. */
static void open_dev(fuzz_dev *d, int c, uint64_t dev_seed) {
  ovta_error err = {0};
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.seed = dev_seed;
  o.dram_bytes = 8u << 20;
  o.work_budget = FSIM_FUZZ_BUDGET;
  if (ovta_dev_open("fsim", &cfgs[c], &o, &d->dev, &err)) abort();
  for (int b = 0; b < NBUF; b++)
    if (ovta_buf_alloc(d->dev, 4096, &d->buf[b], &err)) abort();
}

/* The reused device of config c, reset to its state at open with interleaving seed dev_seed. */
static fuzz_dev *reused_dev(int c, uint64_t dev_seed) {
  static bool registered;
  if (!registered) atexit(close_devs), registered = true;
  if (!devs[c].dev) open_dev(&devs[c], c, dev_seed);
  ovta_error err = {0};
  if (ovta_fsim_reset(devs[c].dev, dev_seed, &err)) abort();
  return &devs[c];
}

/* Data buffer b (4 KiB): byte i is data[(7i + b) mod size], 0 when size is 0. The pattern
 * repeats every `size` bytes: one period byte by byte, then copies (not coverage-instrumented,
 * tests/fuzz/coverage-ignore.txt). */
__attribute__((noinline)) static void fsim_fuzz_fill(uint8_t *h, size_t b, const uint8_t *data, size_t size) {
  if (!size) {
    memset(h, 0, 4096);
    return;
  }
  size_t period = size < 4096 ? size : 4096, j = b % size;
  for (size_t i = 0; i < period; i++) {
    h[i] = data[j];
    j += 7;
    while (j >= size) j -= size;
  }
  for (size_t have = period; have < 4096; have *= 2)
    memcpy(h + have, h, have < 4096 - have ? have : 4096 - have);
}

/* The instruction of control byte c[0] and bytes c[1..16] (file comment), encoded into bits.
 * Not coverage-instrumented (tests/fuzz/coverage-ignore.txt): the harness's own field loops, not
 * the library (ovta_insn_encode is instrumented). */
__attribute__((noinline)) static void fsim_fuzz_insn(const ovta_dev *dev, ovta_buf *const buf[NBUF], const uint8_t *c, ovta_insn_bits *bits) {
  const ovta_isa *isa = ovta_dev_isa(dev);
  const ovta_config *cfg = ovta_dev_config(dev);
  ovta_error err = {0};
  if (c[0] & 0x80) {
    ovta_insn_bits_load(c + 1, bits);
    return;
  }
  ovta_insn in;
  memset(&in, 0, sizeof in);
  in.opcode = c[0] & 7;
  int fmt = ovta_format_of_opcode(in.opcode);
  if (fmt < 0) fmt = OVTA_FMT_FINISH, in.opcode = OVTA_OP_FINISH;
  int ns;
  const ovta_field_spec *sp = ovta_format_specs((ovta_format)fmt, &ns);
  int at = 1;
  for (int k = 0; k < ns; k++) {
    if (skip_mask[fmt] >> k & 1) continue;
    int w = isa->pos[fmt][k].width;
    uint32_t v = 0;
    for (int q = 0; q < 4; q++) v = v << 8 | c[1 + (at + q) % 16];
    at += 2;
    uint64_t mask = w >= 32 ? 0xffffffffull : (1ull << w) - 1;
    int64_t val = (int64_t)(v & mask);
    if (sp[k].is_signed && w < 64 && (val >> (w - 1)) & 1) val -= (int64_t)1 << w;
    if (!(c[0] & 0x40) && (cap_mask[fmt] >> k & 1)) val %= 9;
    ovta_field_set(&in, &sp[k], val);
  }
  if (fmt == OVTA_FMT_MEM) {
    uint64_t eb = (uint64_t)ovta_elem_bytes(cfg, in.memory_type);
    if (eb && (c[0] & 0x38) != 0x38) {
      const ovta_buf *b = buf[(c[0] >> 3) & 3];
      in.dram_base = (uint32_t)(b->phys / eb + in.dram_base % (4096 / eb + 2));
    }
  }
  if (ovta_insn_encode(isa, &in, bits, &err)) abort(); /* every field was kept in range */
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

/* What the run left: its code and message, the counters, the data buffers and every SRAM. */
static uint64_t run_digest(ovta_dev *dev, int rc, const ovta_error *err, ovta_buf *const buf[NBUF]) {
  uint64_t h = fnv(0xcbf29ce484222325ull, &rc, sizeof rc);
  h = fnv(h, &err->code, sizeof err->code);
  h = fnv(h, err->msg, strlen(err->msg));
  ovta_counters ctr;
  ovta_dev_counters(dev, &ctr);
  h = fnv(h, &ctr, sizeof ctr);
  for (int b = 0; b < NBUF; b++) h = fnv(h, buf[b]->host, buf[b]->size);
  for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
    const void *p;
    size_t n;
    ovta_error e = {0};
    if (ovta_fsim_sram(dev, mt, &p, &n, &e)) abort();
    h = fnv(h, p, n);
  }
  return h;
}

/* After any run: the device still runs a one-FINISH program (from the stream's first word). */
static void check_usable(ovta_dev *dev, ovta_buf *stream, const ovta_error *err) {
  ovta_insn fin;
  memset(&fin, 0, sizeof fin);
  fin.opcode = OVTA_OP_FINISH;
  ovta_insn_bits fb;
  uint8_t bytes[16];
  ovta_error e2 = {0};
  if (ovta_insn_encode(ovta_dev_isa(dev), &fin, &fb, &e2)) abort();
  ovta_insn_bits_store(&fb, bytes);
  if (ovta_buf_write(stream, 0, bytes, 16, &e2)) abort();
  if (ovta_dev_run(dev, stream->phys, 1, 0, &e2) != OVTA_OK) {
    fprintf(stderr, "device unusable after '%s': %s\n", err->msg, e2.msg);
    abort();
  }
}

void fsim_fuzz_one(const uint8_t *data, size_t size, bool fresh, fsim_fuzz_result *res) {
  static bool ready;
  if (!ready) init(), ready = true;
  if (res) res->rc = OVTA_OK, res->digest = 0;
  if (size < 2) return;
  int c = data[0] % 3;
  uint64_t dev_seed = data[1] & 0x80 ? data[1] : 0;
  fuzz_dev fd, *d = &fd;
  if (fresh) open_dev(d, c, dev_seed);
  else d = reused_dev(c, dev_seed);
  ovta_dev *dev = d->dev;
  data += 2, size -= 2;
  for (int b = 0; b < NBUF; b++) fsim_fuzz_fill(d->buf[b]->host, (size_t)b, data, size);
  size_t n = size / 17;
  if (n > 512) n = 512;
  uint32_t count = n ? (uint32_t)n : 1;
  ovta_error err = {0};
  ovta_buf *stream; /* after the data buffers, as on a fresh device (freed DRAM is zero) */
  if (ovta_buf_alloc(dev, (size_t)count * 16, &stream, &err)) abort();
  for (size_t i = 0; i < n; i++) {
    ovta_insn_bits bits;
    fsim_fuzz_insn(dev, d->buf, data + 17 * i, &bits);
    uint8_t bytes[16];
    ovta_insn_bits_store(&bits, bytes);
    if (ovta_buf_write(stream, i * 16, bytes, 16, &err)) abort();
  }
  /* n == 0: the stream's all-zero word, a LOAD UOP of nothing, no FINISH */
  ovta_error_clear(&err);
  int rc = ovta_dev_run(dev, stream->phys, count, 0, &err);
  if (rc != OVTA_OK && err.msg[0] == 0) abort();
  if (rc != OVTA_OK && err.code != rc) abort();
  if (res) res->rc = rc, res->digest = run_digest(dev, rc, &err, d->buf);
  check_usable(dev, stream, &err);
  ovta_buf_free(stream);
  if (fresh) ovta_dev_close(dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fsim_fuzz_one(data, size, false, NULL);
  return 0;
}
