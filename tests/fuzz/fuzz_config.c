/* Fuzz target: the hardware config reader (JSON text -> ovta_config + ISA layout). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  ovta_config cfg;
  ovta_error err = {0};
  int rc = ovta_config_parse(text, "fuzz.json", &cfg, &err);
  if (rc == OVTA_OK) {
    ovta_isa isa;
    rc = ovta_isa_init(&isa, &cfg, &err);
    char *j = ovta_config_to_json(&cfg, true);
    free(j);
  }
  if (rc != OVTA_OK && err.msg[0] == 0) abort(); /* every error explains itself */
  free(text);
  return 0;
}
