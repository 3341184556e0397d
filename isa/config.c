/* config.c: the JSON hardware config (ovta_base.h section 2).
 *
 * A config is a JSON object with exactly the keys of the table below (plus "name" and
 * "comment"); every derived value is computed in ovta_config_derive() and nowhere else.
 */
#include "ovta_base.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#ifndef OVTA_SRC_DIR
#define OVTA_SRC_DIR "."
#endif

/* key -> member, range. The element widths are fixed by the datapath (int8 x int8 -> int32). */
static const struct {
  const char *key;
  size_t off;
  int min, max;
} keys[] = {
    {"LOG_INP_WIDTH", offsetof(ovta_config, log_inp_width), 3, 3},
    {"LOG_WGT_WIDTH", offsetof(ovta_config, log_wgt_width), 3, 3},
    {"LOG_ACC_WIDTH", offsetof(ovta_config, log_acc_width), 5, 5},
    {"LOG_BATCH", offsetof(ovta_config, log_batch), 0, 4},
    {"LOG_BLOCK", offsetof(ovta_config, log_block), 1, 6},
    {"LOG_UOP_BUFF_SIZE", offsetof(ovta_config, log_uop_buff_size), 3, 18},
    {"LOG_INP_BUFF_SIZE", offsetof(ovta_config, log_inp_buff_size), 3, 26},
    {"LOG_WGT_BUFF_SIZE", offsetof(ovta_config, log_wgt_buff_size), 3, 26},
    {"LOG_ACC_BUFF_SIZE", offsetof(ovta_config, log_acc_buff_size), 3, 26},
    {"DEP_QUEUE_DEPTH", offsetof(ovta_config, dep_queue_depth), 1, 65536},
    {"CMD_QUEUE_DEPTH", offsetof(ovta_config, cmd_queue_depth), 1, 65536},
    {"AXI_DATA_BITS", offsetof(ovta_config, axi_data_bits), 64, 512},
    {"AXI_ADDR_BITS", offsetof(ovta_config, axi_addr_bits), 32, 64},
    {"AXI_MAX_OUTSTANDING", offsetof(ovta_config, axi_max_outstanding), 1, 64},
    {"CLOCK_MHZ", offsetof(ovta_config, clock_mhz), 1, 1000},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

static int *member(ovta_config *c, size_t off) { return (int *)((char *)c + off); }

/* One buffer: log2 bytes of the SRAM minus log2 bytes of an element, which must leave 1..16
 * index bits (the memory instructions' sram_base is 16 bits wide). */
static int derive_depth(const char *origin, const char *key, int log_size, int elem_bytes,
                        int *depth, int *bits, ovta_error *err) {
  int log_elem = 0;
  while ((1 << log_elem) < elem_bytes) log_elem++;
  int b = log_size - log_elem;
  if (b < 1 || b > 16)
    return OVTA_FAIL(err, OVTA_ECONFIG,
                     "%s: %s=%d gives %d-bit %s indices (elements of %d bytes); need 1 to 16",
                     origin, key, log_size, b, key, elem_bytes);
  *bits = b;
  *depth = 1 << b;
  return OVTA_OK;
}

int ovta_config_derive(ovta_config *c, ovta_error *err) {
  const char *o = c->path[0] ? c->path : c->name;
  for (int i = 0; i < NKEYS; i++) {
    int v = *member(c, keys[i].off);
    if (v < keys[i].min || v > keys[i].max)
      return OVTA_FAIL(err, OVTA_ECONFIG, "%s: key '%s': value %d out of range [%d, %d]", o,
                       keys[i].key, v, keys[i].min, keys[i].max);
  }
  int ab = c->axi_data_bits;
  if (ab & (ab - 1))
    return OVTA_FAIL(err, OVTA_ECONFIG, "%s: key 'AXI_DATA_BITS': %d is not a power of two", o, ab);
  if (c->axi_addr_bits != 32 && c->axi_addr_bits != 64)
    return OVTA_FAIL(err, OVTA_ECONFIG, "%s: key 'AXI_ADDR_BITS': %d is neither 32 nor 64", o,
                     c->axi_addr_bits);
  c->batch = 1 << c->log_batch;
  c->block_in = c->block_out = 1 << c->log_block;
  c->uop_bytes = 4;
  c->inp_bytes = c->batch * c->block_in * (1 << c->log_inp_width) / 8;
  c->wgt_bytes = c->block_out * c->block_in * (1 << c->log_wgt_width) / 8;
  c->acc_bytes = c->batch * c->block_out * (1 << c->log_acc_width) / 8;
  c->out_bytes = c->batch * c->block_out * (1 << c->log_inp_width) / 8;
  int rc;
  if ((rc = derive_depth(o, "LOG_UOP_BUFF_SIZE", c->log_uop_buff_size, c->uop_bytes, &c->uop_depth,
                         &c->uop_idx_bits, err)) ||
      (rc = derive_depth(o, "LOG_INP_BUFF_SIZE", c->log_inp_buff_size, c->inp_bytes, &c->inp_depth,
                         &c->inp_idx_bits, err)) ||
      (rc = derive_depth(o, "LOG_WGT_BUFF_SIZE", c->log_wgt_buff_size, c->wgt_bytes, &c->wgt_depth,
                         &c->wgt_idx_bits, err)) ||
      (rc = derive_depth(o, "LOG_ACC_BUFF_SIZE", c->log_acc_buff_size, c->acc_bytes, &c->acc_depth,
                         &c->acc_idx_bits, err)))
    return rc;
  c->out_depth = c->acc_depth;
  c->src_idx_bits = c->inp_idx_bits > c->acc_idx_bits ? c->inp_idx_bits : c->acc_idx_bits;
  return OVTA_OK;
}

int ovta_config_parse(const char *json, const char *origin, ovta_config *c, ovta_error *err) {
  memset(c, 0, sizeof *c);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
  if (!root) {
    long off = end ? (long)(end - json) : 0;
    int line = 1, col = 1;
    for (long i = 0; i < off && json[i]; i++) {
      if (json[i] == '\n') line++, col = 1;
      else col++;
    }
    return OVTA_FAIL(err, OVTA_ECONFIG, "%s:%d:%d: malformed JSON", origin, line, col);
  }
  int rc = OVTA_OK;
  if (!cJSON_IsObject(root)) {
    rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: a config must be a JSON object", origin);
    goto out;
  }
  snprintf(c->path, sizeof c->path, "%s", origin);
  bool seen[NKEYS] = {0};
  for (cJSON *it = root->child; it; it = it->next) {
    if (!strcmp(it->string, "comment")) continue;
    if (!strcmp(it->string, "name")) {
      if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof c->name) {
        rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: key 'name' must be a string of at most %zu bytes",
                       origin, sizeof c->name - 1);
        goto out;
      }
      snprintf(c->name, sizeof c->name, "%s", it->valuestring);
      continue;
    }
    int k = 0;
    while (k < NKEYS && strcmp(keys[k].key, it->string)) k++;
    if (k == NKEYS) {
      rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: unknown key '%s'", origin, it->string);
      goto out;
    }
    double v = it->valuedouble;
    if (!cJSON_IsNumber(it) || !(v >= -2147483648.0 && v <= 2147483647.0) || v != (double)(int)v) {
      rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: key '%s' must be an integer", origin, it->string);
      goto out;
    }
    if (seen[k]) {
      rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: key '%s' given twice", origin, it->string);
      goto out;
    }
    seen[k] = true;
    *member(c, keys[k].off) = (int)v;
  }
  for (int k = 0; k < NKEYS; k++)
    if (!seen[k]) {
      rc = OVTA_FAIL(err, OVTA_ECONFIG, "%s: missing key '%s'", origin, keys[k].key);
      goto out;
    }
  if (!c->name[0]) {
    const char *base = strrchr(origin, '/');
    base = base ? base + 1 : origin;
    size_t n = strcspn(base, ".");
    if (n >= sizeof c->name) n = sizeof c->name - 1;
    memcpy(c->name, base, n);
    c->name[n] = 0;
  }
  rc = ovta_config_derive(c, err);
out:
  cJSON_Delete(root);
  return rc;
}

static bool file_exists(const char *p) {
  FILE *f = fopen(p, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* Resolve a config name to a path: $OVTA_CONFIG_PATH folders, then isa/configs, then boards/. */
static int resolve(const char *name, char *path, size_t cap, ovta_error *err) {
  for (const char *p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
      return OVTA_FAIL(err, OVTA_ECONFIG, "config name '%s' has a character other than [A-Za-z0-9_-]",
                       name);
  const char *env = getenv("OVTA_CONFIG_PATH");
  if (env) {
    const char *s = env;
    while (*s) {
      size_t n = strcspn(s, ":");
      if (n) {
        snprintf(path, cap, "%.*s/%s.json", (int)n, s, name);
        if (file_exists(path)) return OVTA_OK;
      }
      s += n + (s[n] == ':');
    }
  }
  snprintf(path, cap, "%s/isa/configs/%s.json", OVTA_SRC_DIR, name);
  if (file_exists(path)) return OVTA_OK;
  snprintf(path, cap, "%s/boards/%s/config.json", OVTA_SRC_DIR, name);
  if (file_exists(path)) return OVTA_OK;
  return OVTA_FAIL(err, OVTA_ECONFIG,
                   "no hardware config named '%s' (looked in $OVTA_CONFIG_PATH, %s/isa/configs, "
                   "%s/boards); `ovta config --list` shows them",
                   name, OVTA_SRC_DIR, OVTA_SRC_DIR);
}

int ovta_config_read(const char *name_or_path, ovta_config *cfg, ovta_error *err) {
  char path[512];
  if (!name_or_path || !*name_or_path) name_or_path = "default";
  size_t n = strlen(name_or_path);
  if (strchr(name_or_path, '/') || (n > 5 && !strcmp(name_or_path + n - 5, ".json"))) {
    if (n >= sizeof path) return OVTA_FAIL(err, OVTA_ECONFIG, "config path too long");
    memcpy(path, name_or_path, n + 1);
  } else {
    int rc = resolve(name_or_path, path, sizeof path, err);
    if (rc) return rc;
  }
  char *text = NULL;
  int rc = ovta_read_file(path, 1 << 20, &text, NULL, err);
  if (rc) return rc;
  rc = ovta_config_parse(text, path, cfg, err);
  free(text);
  return rc;
}

char *ovta_config_to_json(const ovta_config *c, bool with_derived) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "name", c->name);
  for (int k = 0; k < NKEYS; k++)
    cJSON_AddNumberToObject(o, keys[k].key, *member((ovta_config *)c, keys[k].off));
  if (with_derived) {
    cJSON *d = cJSON_AddObjectToObject(o, "derived");
    const struct {
      const char *k;
      int v;
    } dv[] = {{"BATCH", c->batch},         {"BLOCK_IN", c->block_in},   {"BLOCK_OUT", c->block_out},
              {"UOP_BYTES", c->uop_bytes}, {"INP_BYTES", c->inp_bytes}, {"WGT_BYTES", c->wgt_bytes},
              {"ACC_BYTES", c->acc_bytes}, {"OUT_BYTES", c->out_bytes}, {"UOP_DEPTH", c->uop_depth},
              {"INP_DEPTH", c->inp_depth}, {"WGT_DEPTH", c->wgt_depth}, {"ACC_DEPTH", c->acc_depth},
              {"OUT_DEPTH", c->out_depth}};
    for (size_t i = 0; d && i < sizeof dv / sizeof dv[0]; i++) cJSON_AddNumberToObject(d, dv[i].k, dv[i].v);
  }
  char *s = cJSON_Print(o);
  cJSON_Delete(o);
  return s;
}
