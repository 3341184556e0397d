/* Fuzz target: fsim through the driver. The input becomes a device config (byte 0: small,
 * default or batch2; byte 1: interleaving seed), then instructions: each takes one control byte
 * and 16 bytes. Control bit 7 set: the 16 bytes are raw instruction words (anything, reserved
 * bits included). Otherwise they fill the fields of the opcode (control & 7) modulo their widths
 * (valid encodings, invalid semantics welcome); dram_base points into one of four data buffers
 * (or just past it), loop counts are kept small unless control bit 6 is set. The run (100 ms
 * timeout) must return OK or an error with a message; then the device must still run a
 * one-FINISH program. Leaks are LeakSanitizer's job. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_driver.h"

#define NBUF 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[3] = {"small", "default", "batch2"};
  static ovta_config cfgs[3];
  static bool ready;
  ovta_error err = {0};
  if (!ready) {
    for (int i = 0; i < 3; i++)
      if (ovta_config_load(names[i], &cfgs[i], &err)) abort();
    ready = true;
  }
  if (size < 2) return 0;
  const ovta_config *cfg = &cfgs[data[0] % 3];
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.seed = data[1] & 0x80 ? data[1] : 0;
  o.dram_bytes = 8u << 20;
  ovta_dev *dev;
  if (ovta_dev_open("fsim", cfg, &o, &dev, &err)) abort();
  const ovta_isa *isa = ovta_dev_isa(dev);
  data += 2, size -= 2;
  /* data buffers: 4 KiB each, filled with the input's bytes, cyclically */
  ovta_buf *buf[NBUF];
  for (int b = 0; b < NBUF; b++) {
    if (ovta_buf_alloc(dev, 4096, &buf[b], &err)) abort();
    uint8_t *h = buf[b]->host;
    for (size_t i = 0; i < 4096; i++) h[i] = size ? data[(i * 7 + (size_t)b) % size] : 0;
  }
  size_t n = size / 17;
  if (n > 512) n = 512;
  uint32_t count = n ? (uint32_t)n : 1;
  ovta_buf *stream;
  if (ovta_buf_alloc(dev, (size_t)count * 16, &stream, &err)) abort();
  for (size_t i = 0; i < n; i++) {
    const uint8_t *c = data + 17 * i;
    ovta_insn_bits bits;
    if (c[0] & 0x80) {
      ovta_insn_bits_load(c + 1, &bits);
    } else {
      ovta_insn in;
      memset(&in, 0, sizeof in);
      in.opcode = c[0] & 7;
      int fmt = ovta_format_of_opcode(in.opcode);
      if (fmt < 0) fmt = OVTA_FMT_FINISH, in.opcode = OVTA_OP_FINISH;
      int ns;
      const ovta_field_spec *sp = ovta_format_specs((ovta_format)fmt, &ns);
      int at = 1;
      for (int k = 0; k < ns; k++) {
        if (!sp[k].name || !strcmp(sp[k].name, "opcode")) continue;
        int w = isa->pos[fmt][k].width;
        uint32_t v = 0;
        for (int q = 0; q < 4; q++) v = v << 8 | c[1 + (at + q) % 16];
        at += 2;
        uint64_t mask = w >= 32 ? 0xffffffffull : (1ull << w) - 1;
        int64_t val = (int64_t)(v & mask);
        if (sp[k].is_signed && w < 64 && (val >> (w - 1)) & 1) val -= (int64_t)1 << w;
        if (!(c[0] & 0x40) && (!strcmp(sp[k].name, "iter_out") || !strcmp(sp[k].name, "iter_in") ||
                                !strcmp(sp[k].name, "y_size")))
          val %= 9;
        ovta_field_set(&in, &sp[k], val);
      }
      if (fmt == OVTA_FMT_MEM) {
        uint64_t eb = (uint64_t)ovta_elem_bytes(cfg, in.memory_type);
        if (eb && (c[0] & 0x38) != 0x38) {
          const ovta_buf *b = buf[(c[0] >> 3) & 3];
          in.dram_base = (uint32_t)(b->phys / eb + in.dram_base % (4096 / eb + 2));
        }
      }
      if (ovta_insn_encode(isa, &in, &bits, &err)) abort(); /* every field was kept in range */
    }
    uint8_t bytes[16];
    ovta_insn_bits_store(&bits, bytes);
    if (ovta_buf_write(stream, i * 16, bytes, 16, &err)) abort();
  }
  if (n == 0) { /* an all-zero word: LOAD UOP of nothing, no FINISH */
    uint8_t z[16] = {0};
    if (ovta_buf_write(stream, 0, z, 16, &err)) abort();
  }
  ovta_error_clear(&err);
  int rc = ovta_dev_run(dev, stream->phys, count, 100, &err);
  if (rc != OVTA_OK && err.msg[0] == 0) abort();
  if (rc != OVTA_OK && err.code != rc) abort();
  /* the device is still usable */
  ovta_insn fin;
  memset(&fin, 0, sizeof fin);
  fin.opcode = OVTA_OP_FINISH;
  ovta_insn_bits fb;
  uint8_t bytes[16];
  if (ovta_insn_encode(isa, &fin, &fb, &err)) abort();
  ovta_insn_bits_store(&fb, bytes);
  if (ovta_buf_write(stream, 0, bytes, 16, &err)) abort();
  ovta_error e2 = {0};
  if (ovta_dev_run(dev, stream->phys, 1, 1000, &e2) != OVTA_OK) {
    fprintf(stderr, "device unusable after '%s': %s\n", err.msg, e2.msg);
    abort();
  }
  ovta_dev_close(dev);
  return 0;
}
