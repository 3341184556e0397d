/* Fuzz target: the disassembler. Byte 0 picks the config (small, default, batch2); the rest is
 * a raw stream of 16-byte instructions. When it decodes, its text form must parse back and
 * assemble to the very same bytes (isa/ASM.md: "ovta asm of that text gives the same bytes");
 * when it does not, the error must say why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[3] = {"small", "default", "batch2"};
  static ovta_isa isa[3];
  static bool ready;
  ovta_error err = {0};
  if (!ready) {
    for (int i = 0; i < 3; i++) {
      ovta_config c;
      if (ovta_config_load(names[i], &c, &err) || ovta_isa_init(&isa[i], &c, &err)) abort();
    }
    ready = true;
  }
  if (size < 1) return 0;
  const ovta_isa *is = &isa[data[0] % 3];
  data++, size--;
  ovta_program p;
  int rc = ovta_disasm_binary(is, data, size, "fuzz.bin", &p, &err);
  if (rc) {
    if (err.msg[0] == 0) abort();
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f || ovta_program_write(f, &p, &err)) abort();
  fclose(f);
  ovta_program q;
  ovta_asm_diag diag;
  ovta_error e2 = {0};
  if (ovta_asm_parse(text, "fuzz.s", &is->cfg, &q, &diag, &e2)) {
    fprintf(stderr, "disassembly does not assemble: %s\n%s", e2.msg, diag.context);
    abort();
  }
  if (q.n_insns != p.n_insns) abort();
  uint8_t *bin = malloc(size + 16);
  if (!bin) abort();
  if (ovta_program_encode(&q, NULL, bin, &e2)) {
    fprintf(stderr, "disassembly does not encode: %s\n", e2.msg);
    abort();
  }
  if (memcmp(bin, data, size)) {
    for (size_t i = 0; i < size; i++)
      if (bin[i] != data[i]) {
        fprintf(stderr, "round trip differs at byte %zu (instruction %zu)\n", i, i / 16);
        break;
      }
    abort();
  }
  free(bin);
  free(text);
  ovta_program_free(&q);
  ovta_program_free(&p);
  return 0;
}
