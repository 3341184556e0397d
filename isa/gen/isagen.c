/* isagen: generate the C header and the SystemVerilog package from isa/encoding.json.
 *
 *   isagen c-header ENCODING.json OUT.h
 *   isagen sv-package ENCODING.json CONFIG.json OUT.sv
 *
 * The C header is config-independent: enums, the decoded-instruction struct and the field
 * specs; the C code places the fields for a config at run time with ovta_layout_place(). The
 * SystemVerilog package is per config: the same function places the fields and the package
 * gets the config values, the enums, one packed struct per format and each field's position.
 */
#include "../ovta_base.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64
#define MAX_MEMBERS 64
#define MAX_FORMATS 8
#define MAX_ENUM 16

typedef struct {
  char name[32];
  int n;
  struct {
    char name[32];
    int value;
  } item[MAX_ENUM];
} enum_def;

typedef struct {
  char name[32];                   /* format name (mem, gemm, ...) */
  char opcodes[8][32];             /* opcodes using it */
  int nops;
  int n;                           /* specs */
  ovta_field_spec spec[MAX_FIELDS];
} format_def;

static enum_def enums[4];
static int nenums;
static format_def formats[MAX_FORMATS];
static int nformats;
static char members[MAX_MEMBERS][32];
static bool member_signed[MAX_MEMBERS];
static int nmembers;
static int insn_bits, uop_bits;
/* the STATUS register section: fields (name, lo, width) and two code tables */
typedef struct status_item {
  char name[32];
  int a, b; /* field: lowest bit and width; code: value and unused */
} status_item;
static status_item st_fields[8], st_outcome[16], st_resp[4];
static int nst_fields, nst_outcome, nst_resp;

static _Noreturn void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "isagen: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void upper(char *dst, const char *src, size_t cap) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; i++) dst[i] = (char)toupper((unsigned char)src[i]);
  dst[i] = 0;
}

static int member_index(const char *name, bool is_signed) {
  for (int i = 0; i < nmembers; i++)
    if (!strcmp(members[i], name)) {
      member_signed[i] |= is_signed;
      return i;
    }
  if (nmembers == MAX_MEMBERS) die("too many fields");
  snprintf(members[nmembers], sizeof members[0], "%s", name);
  member_signed[nmembers] = is_signed;
  return nmembers++;
}

static ovta_width_kind kind_of(const char *s, int *add) {
  static const struct {
    const char *n;
    ovta_width_kind k;
  } names[] = {{"uop_idx", OVTA_W_UOP_IDX}, {"inp_idx", OVTA_W_INP_IDX}, {"wgt_idx", OVTA_W_WGT_IDX},
               {"acc_idx", OVTA_W_ACC_IDX}, {"src_idx", OVTA_W_SRC_IDX}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i].n);
    if (!strncmp(s, names[i].n, n)) {
      if (!s[n]) *add = 0;
      else if (s[n] == '+' && isdigit((unsigned char)s[n + 1])) *add = atoi(s + n + 1);
      else break;
      return names[i].k;
    }
  }
  die("unknown width '%s'", s);
}

static void load_encoding(const char *path) {
  char *text;
  ovta_error err;
  if (ovta_read_file(path, 1 << 20, &text, NULL, &err)) die("%s", err.msg);
  cJSON *root = cJSON_Parse(text);
  if (!root) die("%s: malformed JSON", path);
  insn_bits = cJSON_GetObjectItem(root, "insn_bits")->valueint;
  uop_bits = cJSON_GetObjectItem(root, "uop_bits")->valueint;
  cJSON *e = cJSON_GetObjectItem(root, "enums");
  for (cJSON *it = e ? e->child : NULL; it; it = it->next) {
    enum_def *d = &enums[nenums++];
    snprintf(d->name, sizeof d->name, "%s", it->string);
    for (cJSON *v = it->child; v; v = v->next) {
      snprintf(d->item[d->n].name, sizeof d->item[0].name, "%s", v->string);
      d->item[d->n++].value = v->valueint;
    }
  }
  cJSON *st = cJSON_GetObjectItem(root, "status");
  if (!st) die("%s: no \"status\" section", path);
  const struct {
    const char *key;
    status_item *items;
    int *n, cap;
    bool pair;
  } sec[] = {{"fields", st_fields, &nst_fields, 8, true},
             {"outcome", st_outcome, &nst_outcome, 16, false},
             {"bus_resp", st_resp, &nst_resp, 4, false}};
  for (size_t k = 0; k < sizeof sec / sizeof sec[0]; k++) {
    cJSON *o = cJSON_GetObjectItem(st, sec[k].key);
    if (!cJSON_IsObject(o)) die("%s: status.%s is not an object", path, sec[k].key);
    for (cJSON *v = o->child; v; v = v->next) {
      if (*sec[k].n == sec[k].cap) die("%s: too many status.%s entries", path, sec[k].key);
      status_item *it = &sec[k].items[(*sec[k].n)++];
      snprintf(it->name, sizeof it->name, "%s", v->string);
      if (sec[k].pair) {
        if (cJSON_GetArraySize(v) != 2) die("%s: status.fields.%s is not [lo, width]", path, v->string);
        it->a = cJSON_GetArrayItem(v, 0)->valueint;
        it->b = cJSON_GetArrayItem(v, 1)->valueint;
      } else {
        it->a = v->valueint;
      }
    }
  }
  cJSON *fs = cJSON_GetObjectItem(root, "formats");
  for (cJSON *f = fs ? fs->child : NULL; f; f = f->next) {
    format_def *d = &formats[nformats++];
    snprintf(d->name, sizeof d->name, "%s", f->string);
    cJSON *ops = cJSON_GetObjectItem(f, "opcodes");
    for (cJSON *o = ops ? ops->child : NULL; o; o = o->next)
      snprintf(d->opcodes[d->nops++], sizeof d->opcodes[0], "%s", o->valuestring);
    for (cJSON *fl = cJSON_GetObjectItem(f, "fields")->child; fl; fl = fl->next) {
      ovta_field_spec *s = &d->spec[d->n++];
      if (cJSON_IsObject(fl)) {
        s->name = NULL;
        s->add = cJSON_GetObjectItem(fl, "align")->valueint;
        continue;
      }
      cJSON *nm = cJSON_GetArrayItem(fl, 0), *w = cJSON_GetArrayItem(fl, 1),
            *sg = cJSON_GetArrayItem(fl, 2);
      s->name = strdup(nm->valuestring);
      s->is_signed = sg && cJSON_IsString(sg) && !strcmp(sg->valuestring, "signed");
      if (cJSON_IsNumber(w)) {
        s->kind = OVTA_W_FIXED;
        s->add = w->valueint;
      } else {
        s->kind = kind_of(w->valuestring, &s->add);
      }
      s->member = member_index(s->name, s->is_signed);
    }
  }
  cJSON_Delete(root);
  free(text);
}

static const char *kind_name(ovta_width_kind k) {
  static const char *n[] = {"OVTA_W_FIXED", "OVTA_W_UOP_IDX", "OVTA_W_INP_IDX",
                            "OVTA_W_WGT_IDX", "OVTA_W_ACC_IDX", "OVTA_W_SRC_IDX"};
  return n[k];
}

static const enum_def *find_enum(const char *name) {
  for (int i = 0; i < nenums; i++)
    if (!strcmp(enums[i].name, name)) return &enums[i];
  return NULL;
}

static void c_header(FILE *o) {
  static const char *cprefix[] = {"opcode", "OVTA_OP", "memory_type", "OVTA_MEM", "alu_opcode", "OVTA_ALU"};
  static const char *ctype[] = {"opcode", "ovta_opcode", "memory_type", "ovta_mem_type", "alu_opcode", "ovta_alu_op"};
  fprintf(o, "/* ovta_isa_gen.h: generated by isa/gen/isagen.c from isa/encoding.json. Do not edit. */\n");
  fprintf(o, "#ifndef OVTA_ISA_GEN_H\n#define OVTA_ISA_GEN_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n");
  fprintf(o, "#define OVTA_INSN_BITS %d\n#define OVTA_UOP_BITS %d\n\n", insn_bits, uop_bits);
  for (int i = 0; i < nenums; i++) {
    const enum_def *d = &enums[i];
    const char *pre = NULL, *ty = NULL;
    for (int k = 0; k < 6; k += 2)
      if (!strcmp(cprefix[k], d->name)) pre = cprefix[k + 1], ty = ctype[k + 1];
    if (!pre) die("enum '%s' has no C name", d->name);
    int max = 0;
    fprintf(o, "typedef enum %s {\n", ty);
    for (int j = 0; j < d->n; j++) {
      fprintf(o, "  %s_%s = %d,\n", pre, d->item[j].name, d->item[j].value);
      if (d->item[j].value > max) max = d->item[j].value;
    }
    fprintf(o, "} %s;\n#define %s_COUNT %d\n", ty, pre, max + 1);
    fprintf(o, "static const char *const %s_names[%s_COUNT] = {", ty, pre);
    for (int v = 0; v <= max; v++) {
      const char *nm = NULL;
      for (int j = 0; j < d->n; j++)
        if (d->item[j].value == v) nm = d->item[j].name;
      fprintf(o, "%s", v ? ", " : "");
      if (nm) fprintf(o, "\"%s\"", nm);
      else fprintf(o, "NULL");
    }
    fprintf(o, "};\n\n");
  }
  fprintf(o, "/* The STATUS register (encoding.json \"status\"): field positions and codes. */\n");
  for (int i = 0; i < nst_fields; i++) {
    char up[32];
    upper(up, st_fields[i].name, sizeof up);
    fprintf(o, "#define OVTA_STATUS_%s_LO %d\n#define OVTA_STATUS_%s_W %d\n", up, st_fields[i].a, up, st_fields[i].b);
  }
  for (int i = 0; i < nst_outcome; i++) fprintf(o, "#define OVTA_OUTCOME_%s %d\n", st_outcome[i].name, st_outcome[i].a);
  for (int i = 0; i < nst_resp; i++) fprintf(o, "#define OVTA_BUS_RESP_%s %d\n", st_resp[i].name, st_resp[i].a);
  fprintf(o, "\n");
  fprintf(o, "/* A decoded instruction: the union of every format's fields (a format uses its own). */\n");
  fprintf(o, "typedef struct ovta_insn {\n");
  for (int i = 0; i < nmembers; i++) {
    bool uop_only = false;
    for (int f = 0; f < nformats; f++)
      if (!strcmp(formats[f].name, "uop"))
        for (int j = 0; j < formats[f].n; j++)
          if (formats[f].spec[j].name && formats[f].spec[j].member == i) uop_only = true;
    if (!uop_only) fprintf(o, "  %s %s;\n", member_signed[i] ? "int32_t" : "uint32_t", members[i]);
  }
  fprintf(o, "} ovta_insn;\n\n/* A decoded micro-op. */\ntypedef struct ovta_uop {\n");
  for (int f = 0; f < nformats; f++)
    if (!strcmp(formats[f].name, "uop"))
      for (int j = 0; j < formats[f].n; j++)
        if (formats[f].spec[j].name) fprintf(o, "  uint32_t %s;\n", formats[f].spec[j].name);
  fprintf(o, "} ovta_uop;\n\n");
  fprintf(o, "typedef enum ovta_format {\n");
  for (int f = 0; f < nformats; f++) {
    char up[32];
    upper(up, formats[f].name, sizeof up);
    fprintf(o, "  OVTA_FMT_%s = %d,\n", up, f);
  }
  fprintf(o, "} ovta_format;\n#define OVTA_FMT_COUNT %d\n\n", nformats);
  fprintf(o, "#ifdef OVTA_ISA_GEN_TABLES\n");
  const enum_def *ops = find_enum("opcode");
  int maxop = 0;
  for (int j = 0; j < ops->n; j++)
    if (ops->item[j].value > maxop) maxop = ops->item[j].value;
  fprintf(o, "/* format of each opcode, -1 for none */\nstatic const int ovta_opcode_format[%d] = {", maxop + 1);
  for (int v = 0; v <= maxop; v++) {
    int fmt = -1;
    for (int j = 0; j < ops->n; j++)
      if (ops->item[j].value == v)
        for (int f = 0; f < nformats; f++)
          for (int k = 0; k < formats[f].nops; k++)
            if (!strcmp(formats[f].opcodes[k], ops->item[j].name)) fmt = f;
    fprintf(o, "%d%s", fmt, v < maxop ? ", " : "};\n\n");
  }
  for (int f = 0; f < nformats; f++) {
    const format_def *d = &formats[f];
    bool is_uop = !strcmp(d->name, "uop");
    fprintf(o, "static const ovta_field_spec ovta_fmt_%s_specs[%d] = {\n", d->name, d->n);
    for (int j = 0; j < d->n; j++) {
      const ovta_field_spec *s = &d->spec[j];
      if (!s->name)
        fprintf(o, "    {NULL, 0, OVTA_W_FIXED, %d, false},\n", s->add);
      else
        fprintf(o, "    {\"%s\", (int)offsetof(%s, %s), %s, %d, %s},\n", s->name,
                is_uop ? "ovta_uop" : "ovta_insn", s->name, kind_name(s->kind), s->add,
                s->is_signed ? "true" : "false");
    }
    fprintf(o, "};\n");
  }
  fprintf(o, "static const struct { const char *name; const ovta_field_spec *specs; int n; int bits; } ovta_formats[%d] = {\n", nformats);
  for (int f = 0; f < nformats; f++)
    fprintf(o, "    {\"%s\", ovta_fmt_%s_specs, %d, %d},\n", formats[f].name, formats[f].name, formats[f].n,
            strcmp(formats[f].name, "uop") ? insn_bits : uop_bits);
  fprintf(o, "};\n#endif /* OVTA_ISA_GEN_TABLES */\n\n#endif\n");
}

static void sv_package(FILE *o, const ovta_config *c) {
  fprintf(o, "// ovta_pkg.sv: generated by isa/gen/isagen.c from isa/encoding.json and the config\n");
  fprintf(o, "// '%s' (%s). Do not edit.\n`ifndef OVTA_PKG_SV\n`define OVTA_PKG_SV\npackage ovta_pkg;\n\n", c->name, c->path);
  const struct {
    const char *n;
    int v;
  } p[] = {{"LOG_INP_WIDTH", c->log_inp_width},   {"LOG_WGT_WIDTH", c->log_wgt_width},
           {"LOG_ACC_WIDTH", c->log_acc_width},   {"LOG_BATCH", c->log_batch},
           {"LOG_BLOCK", c->log_block},           {"BATCH", c->batch},
           {"BLOCK_IN", c->block_in},             {"BLOCK_OUT", c->block_out},
           {"INP_WIDTH", 1 << c->log_inp_width},  {"WGT_WIDTH", 1 << c->log_wgt_width},
           {"ACC_WIDTH", 1 << c->log_acc_width},  {"UOP_BYTES", c->uop_bytes},
           {"INP_BYTES", c->inp_bytes},           {"WGT_BYTES", c->wgt_bytes},
           {"ACC_BYTES", c->acc_bytes},           {"OUT_BYTES", c->out_bytes},
           {"UOP_DEPTH", c->uop_depth},           {"INP_DEPTH", c->inp_depth},
           {"WGT_DEPTH", c->wgt_depth},           {"ACC_DEPTH", c->acc_depth},
           {"OUT_DEPTH", c->out_depth},           {"UOP_IDX_BITS", c->uop_idx_bits},
           {"INP_IDX_BITS", c->inp_idx_bits},     {"WGT_IDX_BITS", c->wgt_idx_bits},
           {"ACC_IDX_BITS", c->acc_idx_bits},     {"SRC_IDX_BITS", c->src_idx_bits},
           {"DEP_QUEUE_DEPTH", c->dep_queue_depth}, {"CMD_QUEUE_DEPTH", c->cmd_queue_depth},
           {"AXI_DATA_BITS", c->axi_data_bits},   {"AXI_ADDR_BITS", c->axi_addr_bits},
           {"AXI_MAX_OUTSTANDING", c->axi_max_outstanding}, {"CLOCK_MHZ", c->clock_mhz},
           {"INSN_BITS", insn_bits},              {"UOP_BITS", uop_bits}};
  fprintf(o, "  // ---- hardware config and derived values\n");
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    fprintf(o, "  localparam int unsigned %s = %d;\n", p[i].n, p[i].v);
  static const char *svpre[] = {"opcode", "OP", "memory_type", "MEM", "alu_opcode", "ALU"};
  fprintf(o, "\n  // ---- enumerations\n");
  for (int i = 0; i < nenums; i++) {
    const char *pre = NULL;
    for (int k = 0; k < 6; k += 2)
      if (!strcmp(svpre[k], enums[i].name)) pre = svpre[k + 1];
    fprintf(o, "  typedef enum logic [2:0] {\n");
    for (int j = 0; j < enums[i].n; j++)
      fprintf(o, "    %s_%s = 3'd%d%s\n", pre, enums[i].item[j].name, enums[i].item[j].value,
              j + 1 < enums[i].n ? "," : "");
    fprintf(o, "  } %s_e;\n", enums[i].name);
  }
  fprintf(o, "\n  // ---- the STATUS register: field positions and codes\n");
  for (int i = 0; i < nst_fields; i++) {
    char up[32];
    upper(up, st_fields[i].name, sizeof up);
    fprintf(o, "  localparam int unsigned STATUS_%s_LO = %d;\n  localparam int unsigned STATUS_%s_W = %d;\n", up,
            st_fields[i].a, up, st_fields[i].b);
  }
  for (int i = 0; i < nst_outcome; i++)
    fprintf(o, "  localparam int unsigned OUTCOME_%s = %d;\n", st_outcome[i].name, st_outcome[i].a);
  for (int i = 0; i < nst_resp; i++)
    fprintf(o, "  localparam int unsigned BUS_RESP_%s = %d;\n", st_resp[i].name, st_resp[i].a);
  for (int f = 0; f < nformats; f++) {
    const format_def *d = &formats[f];
    int total = strcmp(d->name, "uop") ? insn_bits : uop_bits;
    ovta_field_pos pos[MAX_FIELDS];
    ovta_error err;
    if (ovta_layout_place(d->spec, d->n, total, c, pos, &err)) die("%s", err.msg);
    char up[32];
    upper(up, d->name, sizeof up);
    fprintf(o, "\n  // ---- format '%s'\n", d->name);
    for (int j = 0; j < d->n; j++) {
      if (!d->spec[j].name) continue;
      char fu[32];
      upper(fu, d->spec[j].name, sizeof fu);
      fprintf(o, "  localparam int unsigned %s_%s_LO = %d, %s_%s_W = %d;\n", up, fu, pos[j].lo, up, fu,
              pos[j].width);
    }
    /* packed struct, most significant field first, reserved gaps named rsvd_HI_LO */
    fprintf(o, "  typedef struct packed {\n");
    int top = total;
    for (int j = d->n - 1; j >= -1; j--) {
      int hi_end = j >= 0 && d->spec[j].name ? pos[j].lo + pos[j].width : 0;
      if (j >= 0 && !d->spec[j].name) continue;
      if (hi_end < top) fprintf(o, "    logic [%d:0] rsvd_%d_%d;\n", top - hi_end - 1, top - 1, hi_end);
      if (j < 0) break;
      fprintf(o, "    logic %s[%d:0] %s;\n", d->spec[j].is_signed ? "signed " : "", pos[j].width - 1,
              d->spec[j].name);
      top = pos[j].lo;
    }
    fprintf(o, "  } %s_t;\n", d->name);
  }
  fprintf(o, "\nendpackage\n`endif\n");
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "c-header")) {
    load_encoding(argv[2]);
    FILE *o = fopen(argv[3], "w");
    if (!o) die("cannot write %s", argv[3]);
    c_header(o);
    return fclose(o) ? 1 : 0;
  }
  if (argc == 5 && !strcmp(argv[1], "sv-package")) {
    load_encoding(argv[2]);
    ovta_config c;
    ovta_error err;
    if (ovta_config_read(argv[3], &c, &err)) die("%s", err.msg);
    FILE *o = fopen(argv[4], "w");
    if (!o) die("cannot write %s", argv[4]);
    sv_package(o, &c);
    return fclose(o) ? 1 : 0;
  }
  fprintf(stderr, "usage: isagen c-header ENCODING.json OUT.h\n"
                  "       isagen sv-package ENCODING.json CONFIG.json OUT.sv\n");
  return 2;
}
