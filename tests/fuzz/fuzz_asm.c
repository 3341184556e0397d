/* Fuzz target: the assembler (text -> ovta_program), and what a parsed program must satisfy:
 * printing it (ovta_program_write) and parsing that gives the same text again (isa/ASM.md,
 * "Canonical form"), and placing + encoding it (ovta_program_layout, ovta_program_encode)
 * succeeds or fails with a message. Every error must explain itself. Inputs declaring buffers
 * over 16 MiB are skipped (huge sizes are in the tests/bad catalogue, not worth RSS here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_isa.h"

static bool huge_buffer(const char *t) {
  for (const char *s = strstr(t, ".buffer"); s; s = strstr(s + 1, ".buffer")) {
    const char *p = s + 7;
    while (*p == ' ' || *p == '\t') p++;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++; /* the name */
    while (*p == ' ' || *p == '\t') p++;
    if (strtoull(p, NULL, 0) > (16u << 20) || (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) || strchr(p, '_'))
      return true;
  }
  return false;
}

static char *to_text(const ovta_program *p) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) abort();
  ovta_error err = {0};
  if (ovta_program_write(f, p, &err)) abort();
  fclose(f);
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ovta_config cfg;
  static bool have_cfg;
  ovta_error err = {0};
  if (!have_cfg) {
    if (ovta_config_load("small", &cfg, &err)) abort();
    have_cfg = true;
  }
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  if (huge_buffer(text)) {
    free(text);
    return 0;
  }
  ovta_program p;
  ovta_asm_diag diag;
  int rc = ovta_asm_parse(text, "fuzz.s", &cfg, &p, &diag, &err);
  if (rc != OVTA_OK) {
    if (err.msg[0] == 0) abort();                 /* every error explains itself */
    if (rc == OVTA_EPARSE && diag.line == 0 && strstr(err.msg, "fuzz.s:")) abort(); /* a place without a caret */
  } else {
    char *t1 = to_text(&p);
    ovta_program q;
    ovta_error e2 = {0};
    if (ovta_asm_parse(t1, "again.s", &cfg, &q, NULL, &e2)) {
      fprintf(stderr, "canonical text does not parse: %s\n%s\n", e2.msg, t1);
      abort();
    }
    char *t2 = to_text(&q);
    if (strcmp(t1, t2)) {
      fprintf(stderr, "canonical text is not stable:\n%s\n---\n%s\n", t1, t2);
      abort();
    }
    uint64_t *addr = calloc(p.n_bufs + 1, sizeof *addr);
    uint8_t *bin = malloc(p.n_insns * 16 + 16);
    if (addr && bin) {
      ovta_program_layout(&p, 0x1000, addr);
      ovta_error e3 = {0};
      if (ovta_program_encode(&p, addr, bin, &e3) && e3.msg[0] == 0) abort();
    }
    free(addr);
    free(bin);
    free(t1);
    free(t2);
    ovta_program_free(&q);
    ovta_program_free(&p);
  }
  free(text);
  return 0;
}
