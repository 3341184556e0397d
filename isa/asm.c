/* asm.c: the assembler: text form -> ovta_program (ovta_isa.h section 4; grammar in isa/ASM.md).
 *
 * The text is read line by line. A line is empty, a comment (# to the end of the line), a
 * directive (".config", ".buffer", ".hex", ".int8", ".int32", ".uops", ".insns", ".dump"), an
 * instruction (an opcode name and name=value fields) or a micro-op ("uop" and name=value
 * fields). Every error names origin:line:col and fills an ovta_asm_diag with a caret line.
 */
#include "ovta_isa.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKENS 64
#define MAX_BUFFER_BYTES (1ull << 32) /* a buffer larger than the 32-bit DRAM makes no sense */

/* A token of the current line: [s, s+len), at 1-based column col. */
typedef struct tok {
  const char *s;  /* start in the line */
  int len;        /* bytes */
  int col;        /* 1-based column */
} tok;

/* Parser state. */
typedef struct parser {
  const char *origin;     /* file name for messages */
  const char *text;       /* whole text */
  const char *line_start; /* current line */
  int line_len;           /* bytes of the current line without the newline */
  int line;               /* 1-based line number */
  bool started;           /* something other than .config was seen */
  int uop_buf;            /* ".uops" cursor: buffer, -1 when none */
  uint64_t uop_off;       /* ".uops" cursor: next byte offset */
  int last_uop_data;      /* index of the data piece the last uop line extended, -1 none */
  int insns_line;         /* line of ".insns" (0: none) */
  int insns_col;          /* column of its operand */
  size_t cap_insns, cap_bufs, cap_data, cap_dumps; /* array capacities */
  ovta_program *p;        /* output */
  ovta_asm_diag *diag;    /* may be NULL */
  ovta_error *err;        /* may be NULL */
} parser;

/* Fill the diag with the current line and a caret under [col, col+len). */
static void set_diag(parser *ps, int col, int len) {
  if (!ps->diag) return;
  ovta_asm_diag *d = ps->diag;
  d->line = ps->line;
  d->col = col;
  int n = ps->line_len > 200 ? 200 : ps->line_len;
  int off = snprintf(d->context, sizeof d->context, "%5d | %.*s\n      | ", ps->line, n,
                     ps->line_start);
  for (int i = 0; i < col - 1 && i < n && off < (int)sizeof d->context - 4; i++)
    d->context[off++] = ps->line_start[i] == '\t' ? '\t' : ' ';
  if (off < (int)sizeof d->context - 2) d->context[off++] = '^';
  for (int i = 1; i < len && i < 80 && off < (int)sizeof d->context - 2; i++) d->context[off++] = '~';
  d->context[off++] = '\n';
  d->context[off] = 0;
}

/* Fail at a token: "origin:line:col: message". */
__attribute__((format(printf, 4, 5))) static int fail_at(parser *ps, int col, int len,
                                                         const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  set_diag(ps, col, len);
  return OVTA_FAIL(ps->err, OVTA_EPARSE, "%s:%d:%d: %s", ps->origin, ps->line, col, msg);
}
#define FAIL_TOK(ps, t, ...) fail_at((ps), (t).col, (t).len, __VA_ARGS__)

static bool tok_is(tok t, const char *s) {
  return (int)strlen(s) == t.len && !strncmp(t.s, s, (size_t)t.len);
}
static bool tok_is_ci(tok t, const char *s) {
  return (int)strlen(s) == t.len && !strncasecmp(t.s, s, (size_t)t.len);
}

/* number := '-'? ( '0x' hex+ | '0b' bin+ | dec+ ); fails unless the whole token is a number
 * whose magnitude fits 64 bits. */
static bool parse_number(const char *s, int len, int64_t *out) {
  int i = 0;
  bool neg = false;
  if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  int base = 10;
  if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) base = 16, i += 2;
  else if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) base = 2, i += 2;
  if (i >= len) return false;
  uint64_t v = 0;
  for (; i < len; i++) {
    int c = (unsigned char)s[i], d;
    if (c == '_') continue; /* digit separator: 0x1000_0000 */
    if (isdigit(c)) d = c - '0';
    else if (isxdigit(c)) d = tolower(c) - 'a' + 10;
    else return false;
    if (d >= base) return false;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return false;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  if (!neg && v > (uint64_t)INT64_MAX) return false;
  if (neg && v > (uint64_t)INT64_MAX + 1) return false;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static bool is_ident(const char *s, int len) {
  if (len <= 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (int i = 1; i < len; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
  return true;
}

static int find_buffer_n(const ovta_program *p, const char *s, int len) {
  for (size_t i = 0; i < p->n_bufs; i++)
    if ((int)strlen(p->bufs[i].name) == len && !strncmp(p->bufs[i].name, s, (size_t)len)) return (int)i;
  return -1;
}

int ovta_program_find_buffer(const ovta_program *p, const char *name) {
  return find_buffer_n(p, name, (int)strlen(name));
}

/* Grow an array to hold one more element. */
static int grow(parser *ps, void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return OVTA_OK;
  size_t nc = *cap ? *cap * 2 : 16;
  void *a = realloc(*arr, nc * elem);
  if (!a) return OVTA_FAIL(ps->err, OVTA_ENOMEM, "%s:%d: out of memory", ps->origin, ps->line);
  *arr = a;
  *cap = nc;
  return OVTA_OK;
}

/* location := NAME ( '+' number )?   a byte offset into a declared buffer */
static int parse_loc(parser *ps, tok t, int *buf, uint64_t *off) {
  int n = 0;
  while (n < t.len && t.s[n] != '+') n++;
  if (!is_ident(t.s, n))
    return FAIL_TOK(ps, t, "expected a buffer name (and +OFFSET), got '%.*s'", t.len, t.s);
  int b = find_buffer_n(ps->p, t.s, n);
  if (b < 0) return fail_at(ps, t.col, n, "unknown buffer '%.*s' (declare it with .buffer first)", n, t.s);
  int64_t o = 0;
  if (n < t.len && (!parse_number(t.s + n + 1, t.len - n - 1, &o) || o < 0))
    return fail_at(ps, t.col + n + 1, t.len - n - 1, "bad offset '%.*s': expected a number >= 0",
                   t.len - n - 1, t.s + n + 1);
  *buf = b;
  *off = (uint64_t)o;
  return OVTA_OK;
}

/* Check that [off, off+len) is inside buffer b; t names the place. */
static int check_range(parser *ps, tok t, int b, uint64_t off, uint64_t len) {
  const ovta_asm_buffer *bf = &ps->p->bufs[b];
  if (off > bf->size || len > bf->size - off)
    return FAIL_TOK(ps, t, "bytes [%llu, %llu) are outside buffer '%s' of %llu bytes",
                    (unsigned long long)off, (unsigned long long)(off + len), bf->name,
                    (unsigned long long)bf->size);
  return OVTA_OK;
}

static int add_data(parser *ps, int b, uint64_t off, uint64_t len, ovta_data_kind kind) {
  int rc = grow(ps, (void **)&ps->p->data, &ps->cap_data, ps->p->n_data, sizeof *ps->p->data);
  if (rc) return rc;
  ps->p->data[ps->p->n_data++] = (ovta_asm_data){.buffer = b, .off = off, .len = len, .kind = kind};
  return OVTA_OK;
}

/* The enum-valued fields: the field name equals the enum's key in isa/encoding.json. */
static const struct {
  const char *field;
  int (*from_name)(const char *);
  const char *(*name)(uint32_t);
} enum_fields[] = {
    {"memory_type", ovta_mem_type_from_name, ovta_mem_type_name},
    {"alu_opcode", ovta_alu_op_from_name, ovta_alu_op_name},
};

/* fields := ( NAME '=' value )*   for format fmt into obj. value is a number, or for an enum
 * field an enum name, or for dram_base '@' location-in-elements. seen gets a bit per spec. */
static int parse_fields(parser *ps, const char *what, ovta_format fmt, tok *t, int nt, void *obj,
                        int *dram_buf) {
  int nspec;
  const ovta_field_spec *specs = ovta_format_specs(fmt, &nspec);
  uint64_t seen = 0;
  for (int k = 0; k < nt; k++) {
    const char *eq = memchr(t[k].s, '=', (size_t)t[k].len);
    if (!eq)
      return FAIL_TOK(ps, t[k], "expected name=value, got '%.*s'", t[k].len, t[k].s);
    int nlen = (int)(eq - t[k].s);
    tok val = {eq + 1, t[k].len - nlen - 1, t[k].col + nlen + 1};
    int i = 0;
    for (; i < nspec; i++)
      if (specs[i].name && (int)strlen(specs[i].name) == nlen && !strncmp(specs[i].name, t[k].s, (size_t)nlen))
        break;
    if (i == nspec || (fmt != OVTA_FMT_UOP && !strcmp(specs[i].name, "opcode"))) {
      if (i < nspec) return fail_at(ps, t[k].col, nlen, "the opcode is given by the mnemonic, not a field");
      return fail_at(ps, t[k].col, nlen, "unknown field '%.*s' for %s", nlen, t[k].s, what);
    }
    if (seen >> i & 1) return fail_at(ps, t[k].col, nlen, "field '%s' given twice", specs[i].name);
    seen |= 1ull << i;
    if (val.len == 0) return FAIL_TOK(ps, t[k], "field '%s' has no value", specs[i].name);
    int width = ps->p->isa.pos[fmt][i].width;
    int64_t v;
    bool is_enum = false;
    for (size_t e = 0; e < sizeof enum_fields / sizeof enum_fields[0]; e++) {
      if (strcmp(enum_fields[e].field, specs[i].name)) continue;
      is_enum = true;
      char name[32];
      if (isalpha((unsigned char)val.s[0]) && val.len < (int)sizeof name) {
        for (int c = 0; c < val.len; c++) name[c] = (char)toupper((unsigned char)val.s[c]);
        name[val.len] = 0;
        int x = enum_fields[e].from_name(name);
        if (x < 0) {
          char known[128] = "";
          for (uint32_t q = 0; enum_fields[e].name(q); q++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", q ? ", " : "",
                     enum_fields[e].name(q));
          return FAIL_TOK(ps, val, "unknown %s '%.*s' (one of %s, or a number)", specs[i].name,
                          val.len, val.s, known);
        }
        ovta_field_set(obj, &specs[i], x);
        goto next;
      }
    }
    (void)is_enum;
    if (val.s[0] == '@') {
      if (!dram_buf || strcmp(specs[i].name, "dram_base"))
        return FAIL_TOK(ps, val, "only dram_base can refer to a buffer, not '%s'", specs[i].name);
      tok loc = {val.s + 1, val.len - 1, val.col + 1};
      uint64_t off;
      int rc = parse_loc(ps, loc, dram_buf, &off);
      if (rc) return rc;
      v = (int64_t)off;
    } else if (!parse_number(val.s, val.len, &v)) {
      return FAIL_TOK(ps, val, "bad value '%.*s' for field '%s': expected a number", val.len, val.s,
                      specs[i].name);
    }
    if (specs[i].is_signed) {
      int64_t lo = -(1ll << (width - 1)), hi = (1ll << (width - 1)) - 1;
      if (v < lo || v > hi)
        return FAIL_TOK(ps, val, "%s=%lld does not fit in %d signed bits [%lld, %lld]", specs[i].name,
                        (long long)v, width, (long long)lo, (long long)hi);
    } else {
      uint64_t hi = width >= 64 ? UINT64_MAX : (1ull << width) - 1;
      if (v < 0 || (uint64_t)v > hi)
        return FAIL_TOK(ps, val, "%s=%lld does not fit in %d bits [0, %llu]", specs[i].name,
                        (long long)v, width, (unsigned long long)hi);
    }
    ovta_field_set(obj, &specs[i], v);
  next:;
  }
  return OVTA_OK;
}

/* .config NAME_OR_PATH   must come before everything else */
static int dir_config(parser *ps, tok *t, int nt) {
  if (nt != 2) return FAIL_TOK(ps, t[0], ".config takes one config name or path");
  if (ps->started)
    return FAIL_TOK(ps, t[0], ".config must come before every other directive and instruction");
  if (ps->p->config[0]) return FAIL_TOK(ps, t[0], ".config given twice");
  char name[512];
  if (t[1].len >= (int)sizeof name) return FAIL_TOK(ps, t[1], "config name too long");
  memcpy(name, t[1].s, (size_t)t[1].len);
  name[t[1].len] = 0;
  ovta_config cfg;
  ovta_error e;
  if (ovta_config_load(name, &cfg, &e) || ovta_isa_init(&ps->p->isa, &cfg, &e)) {
    set_diag(ps, t[1].col, t[1].len);
    return OVTA_FAIL(ps->err, e.code, "%s:%d:%d: %s", ps->origin, ps->line, t[1].col, e.msg);
  }
  snprintf(ps->p->config, sizeof ps->p->config, "%s", name);
  return OVTA_OK;
}

/* .buffer NAME SIZE   SIZE in bytes, > 0 */
static int dir_buffer(parser *ps, tok *t, int nt) {
  if (nt != 3) return FAIL_TOK(ps, t[0], ".buffer takes a name and a size in bytes");
  if (!is_ident(t[1].s, t[1].len) || t[1].len >= OVTA_ASM_NAME_MAX)
    return FAIL_TOK(ps, t[1], "bad buffer name '%.*s': expected [A-Za-z_][A-Za-z0-9_]* (at most %d characters)",
                    t[1].len, t[1].s, OVTA_ASM_NAME_MAX - 1);
  if (find_buffer_n(ps->p, t[1].s, t[1].len) >= 0)
    return FAIL_TOK(ps, t[1], "buffer '%.*s' declared twice", t[1].len, t[1].s);
  int64_t size;
  if (!parse_number(t[2].s, t[2].len, &size) || size <= 0 || (uint64_t)size > MAX_BUFFER_BYTES)
    return FAIL_TOK(ps, t[2], "bad buffer size '%.*s': expected bytes in [1, 2^32]", t[2].len, t[2].s);
  int rc = grow(ps, (void **)&ps->p->bufs, &ps->cap_bufs, ps->p->n_bufs, sizeof *ps->p->bufs);
  if (rc) return rc;
  ovta_asm_buffer *b = &ps->p->bufs[ps->p->n_bufs];
  memset(b, 0, sizeof *b);
  memcpy(b->name, t[1].s, (size_t)t[1].len);
  b->size = (uint64_t)size;
  b->line = ps->line;
  b->init = calloc(1, (size_t)size);
  if (!b->init) return OVTA_FAIL(ps->err, OVTA_ENOMEM, "%s:%d: out of memory for %lld bytes", ps->origin,
                                 ps->line, (long long)size);
  ps->p->n_bufs++;
  return OVTA_OK;
}

/* .hex LOC HEXBYTES...    .int8 LOC V...    .int32 LOC V... */
static int dir_data(parser *ps, tok *t, int nt, ovta_data_kind kind) {
  if (nt < 3) return FAIL_TOK(ps, t[0], "%.*s takes a location (NAME[+OFFSET]) and values", t[0].len, t[0].s);
  int b;
  uint64_t off;
  int rc = parse_loc(ps, t[1], &b, &off);
  if (rc) return rc;
  uint8_t tmp[MAX_TOKENS * 4 * 16];
  size_t n = 0;
  for (int k = 2; k < nt; k++) {
    if (kind == OVTA_DATA_HEX) {
      const char *s = t[k].s;
      int len = t[k].len;
      if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2, len -= 2;
      if (len % 2 || len / 2 > 64)
        return FAIL_TOK(ps, t[k], "bad hex bytes '%.*s': expected pairs of hex digits (at most 64 bytes a group)",
                        t[k].len, t[k].s);
      for (int i = 0; i < len; i += 2) {
        int64_t v;
        if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
          return FAIL_TOK(ps, t[k], "bad hex bytes '%.*s': expected pairs of hex digits", t[k].len, t[k].s);
        char pair[5] = {'0', 'x', s[i], s[i + 1], 0};
        parse_number(pair, 4, &v);
        tmp[n++] = (uint8_t)v;
      }
      continue;
    }
    int64_t v;
    if (!parse_number(t[k].s, t[k].len, &v))
      return FAIL_TOK(ps, t[k], "bad value '%.*s': expected a number", t[k].len, t[k].s);
    if (kind == OVTA_DATA_INT8) {
      if (v < -128 || v > 255)
        return FAIL_TOK(ps, t[k], "%lld does not fit in a byte [-128, 255]", (long long)v);
      tmp[n++] = (uint8_t)v;
    } else {
      if (v < INT32_MIN || v > (int64_t)UINT32_MAX)
        return FAIL_TOK(ps, t[k], "%lld does not fit in 32 bits [-2^31, 2^32-1]", (long long)v);
      for (int i = 0; i < 4; i++) tmp[n++] = (uint8_t)((uint64_t)v >> (8 * i));
    }
  }
  tok whole = {t[1].s, (int)(t[nt - 1].s + t[nt - 1].len - t[1].s), t[1].col};
  rc = check_range(ps, whole, b, off, n);
  if (rc) return rc;
  memcpy(ps->p->bufs[b].init + off, tmp, n);
  ps->last_uop_data = -1;
  return add_data(ps, b, off, n, kind);
}

/* .uops LOC   where the following uop lines go (4 bytes each) */
static int dir_uops(parser *ps, tok *t, int nt) {
  if (nt != 2) return FAIL_TOK(ps, t[0], ".uops takes one location (NAME[+OFFSET])");
  int rc = parse_loc(ps, t[1], &ps->uop_buf, &ps->uop_off);
  if (rc) return rc;
  ps->last_uop_data = -1;
  return OVTA_OK;
}

/* uop FIELDS   one micro-op at the .uops cursor */
static int line_uop(parser *ps, tok *t, int nt) {
  if (ps->uop_buf < 0) return FAIL_TOK(ps, t[0], "uop line before any .uops directive");
  ovta_uop u = {0};
  int rc = parse_fields(ps, "uop", OVTA_FMT_UOP, t + 1, nt - 1, &u, NULL);
  if (rc) return rc;
  uint32_t w;
  ovta_error e;
  if (ovta_uop_encode(&ps->p->isa, &u, &w, &e)) unreachable(); /* widths checked above */
  rc = check_range(ps, t[0], ps->uop_buf, ps->uop_off, 4);
  if (rc) return rc;
  uint8_t *d = ps->p->bufs[ps->uop_buf].init + ps->uop_off;
  for (int i = 0; i < 4; i++) d[i] = (uint8_t)(w >> (8 * i));
  if (ps->last_uop_data >= 0) {
    ps->p->data[ps->last_uop_data].len += 4;
  } else {
    rc = add_data(ps, ps->uop_buf, ps->uop_off, 4, OVTA_DATA_UOP);
    if (rc) return rc;
    ps->last_uop_data = (int)ps->p->n_data - 1;
  }
  ps->uop_off += 4;
  return OVTA_OK;
}

/* .insns LOC   the stream goes into this buffer at this byte offset */
static int dir_insns(parser *ps, tok *t, int nt) {
  if (nt != 2) return FAIL_TOK(ps, t[0], ".insns takes one location (NAME[+OFFSET])");
  if (ps->insns_line) return FAIL_TOK(ps, t[0], ".insns given twice (first on line %d)", ps->insns_line);
  int rc = parse_loc(ps, t[1], &ps->p->insn_buf, &ps->p->insn_off);
  if (rc) return rc;
  if (ps->p->insn_off % 16)
    return FAIL_TOK(ps, t[1], "the instruction stream must start at a multiple of 16 bytes");
  ps->insns_line = ps->line;
  ps->insns_col = t[1].col;
  return OVTA_OK;
}

/* .dump LOC LEN [hex|int8|int32] */
static int dir_dump(parser *ps, tok *t, int nt) {
  if (nt != 3 && nt != 4)
    return FAIL_TOK(ps, t[0], ".dump takes a location (NAME[+OFFSET]), a length in bytes and a format");
  int b;
  uint64_t off;
  int rc = parse_loc(ps, t[1], &b, &off);
  if (rc) return rc;
  int64_t len;
  if (!parse_number(t[2].s, t[2].len, &len) || len <= 0)
    return FAIL_TOK(ps, t[2], "bad length '%.*s': expected bytes > 0", t[2].len, t[2].s);
  rc = check_range(ps, t[2], b, off, (uint64_t)len);
  if (rc) return rc;
  int kind = OVTA_DATA_INT8;
  if (nt == 4) {
    char k[16] = "";
    if (t[3].len < (int)sizeof k) memcpy(k, t[3].s, (size_t)t[3].len);
    kind = ovta_data_kind_from_name(k);
    if (kind < 0 || kind == OVTA_DATA_UOP)
      return FAIL_TOK(ps, t[3], "unknown dump format '%.*s' (hex, int8 or int32)", t[3].len, t[3].s);
    if (kind == OVTA_DATA_INT32 && len % 4)
      return FAIL_TOK(ps, t[2], "an int32 dump needs a length that is a multiple of 4");
  }
  rc = grow(ps, (void **)&ps->p->dumps, &ps->cap_dumps, ps->p->n_dumps, sizeof *ps->p->dumps);
  if (rc) return rc;
  ps->p->dumps[ps->p->n_dumps++] =
      (ovta_asm_dump){.buffer = b, .off = off, .len = (uint64_t)len, .kind = (ovta_data_kind)kind};
  return OVTA_OK;
}

/* OPCODE FIELDS */
static int line_insn(parser *ps, tok *t, int nt, int op) {
  int rc = grow(ps, (void **)&ps->p->insns, &ps->cap_insns, ps->p->n_insns, sizeof *ps->p->insns);
  if (rc) return rc;
  ovta_asm_insn ai = {.dram_buf = -1, .line = ps->line};
  ai.insn.opcode = (uint32_t)op;
  int fmt = ovta_format_of_opcode((uint32_t)op);
  if (fmt < 0) unreachable(); /* every named opcode has a format */
  rc = parse_fields(ps, ovta_opcode_name((uint32_t)op), (ovta_format)fmt, t + 1, nt - 1, &ai.insn,
                    fmt == OVTA_FMT_MEM ? &ai.dram_buf : NULL);
  if (rc) return rc;
  ps->p->insns[ps->p->n_insns++] = ai;
  return OVTA_OK;
}

/* Split the line into whitespace-separated tokens, stopping at '#'. */
static int tokenize(parser *ps, tok *t, int *nt) {
  int n = 0, i = 0;
  const char *s = ps->line_start;
  while (i < ps->line_len) {
    while (i < ps->line_len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) i++;
    if (i >= ps->line_len || s[i] == '#') break;
    int b = i;
    while (i < ps->line_len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#') i++;
    if (n == MAX_TOKENS) return fail_at(ps, b + 1, i - b, "more than %d tokens on one line", MAX_TOKENS);
    t[n++] = (tok){s + b, i - b, b + 1};
  }
  *nt = n;
  return OVTA_OK;
}

static int parse_line(parser *ps) {
  tok t[MAX_TOKENS];
  int nt = 0;
  int rc = tokenize(ps, t, &nt);
  if (rc || nt == 0) return rc;
  for (int i = 0; i < ps->line_len; i++)
    if ((unsigned char)ps->line_start[i] < 0x20 && ps->line_start[i] != '\t' && ps->line_start[i] != '\r')
      return fail_at(ps, i + 1, 1, "control character 0x%02x in the text (is this a binary file?)",
                     (unsigned char)ps->line_start[i]);
  if (t[0].s[0] == '.') {
    if (tok_is(t[0], ".config")) return dir_config(ps, t, nt);
    ps->started = true;
    if (tok_is(t[0], ".buffer")) return dir_buffer(ps, t, nt);
    if (tok_is(t[0], ".hex")) return dir_data(ps, t, nt, OVTA_DATA_HEX);
    if (tok_is(t[0], ".int8")) return dir_data(ps, t, nt, OVTA_DATA_INT8);
    if (tok_is(t[0], ".int32")) return dir_data(ps, t, nt, OVTA_DATA_INT32);
    if (tok_is(t[0], ".uops")) return dir_uops(ps, t, nt);
    if (tok_is(t[0], ".insns")) return dir_insns(ps, t, nt);
    if (tok_is(t[0], ".dump")) return dir_dump(ps, t, nt);
    return FAIL_TOK(ps, t[0], "unknown directive '%.*s'", t[0].len, t[0].s);
  }
  ps->started = true;
  if (tok_is_ci(t[0], "uop")) return line_uop(ps, t, nt);
  for (uint32_t op = 0; ovta_opcode_name(op); op++)
    if (tok_is_ci(t[0], ovta_opcode_name(op))) return line_insn(ps, t, nt, (int)op);
  return FAIL_TOK(ps, t[0], "unknown instruction '%.*s' (LOAD, STORE, GEMM, ALU, FINISH, uop or a directive)",
                  t[0].len, t[0].s);
}

int ovta_asm_parse(const char *text, const char *origin, const ovta_config *cfg, ovta_program *out,
                   ovta_asm_diag *diag, ovta_error *err) {
  if (diag) memset(diag, 0, sizeof *diag);
  memset(out, 0, sizeof *out);
  out->insn_buf = -1;
  ovta_config def;
  if (!cfg) {
    int rc = ovta_config_load("default", &def, err);
    if (rc) return rc;
    cfg = &def;
  }
  int rc = ovta_isa_init(&out->isa, cfg, err);
  if (rc) return rc;
  if (!origin) origin = "<text>";
  snprintf(out->origin, sizeof out->origin, "%s", origin);
  parser ps = {.origin = origin, .text = text, .uop_buf = -1, .last_uop_data = -1, .p = out,
               .diag = diag, .err = err};
  const char *s = text;
  while (*s) {
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    ps.line++;
    ps.line_start = s;
    if (len > 100000) {
      ps.line_len = 0;
      rc = fail_at(&ps, 1, 1, "line longer than 100000 bytes");
    } else {
      ps.line_len = (int)len;
      rc = parse_line(&ps);
    }
    if (rc) {
      ovta_program_free(out);
      return rc;
    }
    s += len + (e != NULL);
  }
  if (out->insn_buf >= 0) {
    const ovta_asm_buffer *b = &out->bufs[out->insn_buf];
    uint64_t need = out->n_insns * 16;
    if (out->insn_off > b->size || need > b->size - out->insn_off) {
      /* point back at the .insns line */
      const char *ls = text;
      for (int l = 1; l < ps.insns_line; l++) ls = strchr(ls, '\n') + 1;
      const char *le = strchr(ls, '\n');
      ps.line = ps.insns_line;
      ps.line_start = ls;
      ps.line_len = le ? (int)(le - ls) : (int)strlen(ls);
      rc = fail_at(&ps, ps.insns_col, 1,
                   "%zu instructions (%llu bytes) at offset %llu do not fit buffer '%s' of %llu bytes",
                   out->n_insns, (unsigned long long)need, (unsigned long long)out->insn_off, b->name,
                   (unsigned long long)b->size);
      ovta_program_free(out);
      return rc;
    }
  }
  return OVTA_OK;
}

void ovta_program_init(ovta_program *p, const ovta_isa *isa) {
  memset(p, 0, sizeof *p);
  p->isa = *isa;
  p->insn_buf = -1;
}

void ovta_program_free(ovta_program *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_bufs; i++) free(p->bufs[i].init);
  free(p->bufs);
  free(p->insns);
  free(p->data);
  free(p->dumps);
  ovta_isa isa = p->isa;
  char origin[sizeof p->origin];
  memcpy(origin, p->origin, sizeof origin);
  memset(p, 0, sizeof *p);
  p->isa = isa;
  memcpy(p->origin, origin, sizeof origin);
  p->insn_buf = -1;
}

uint64_t ovta_program_align(const ovta_program *p) {
  uint64_t a = 64;
  for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
    uint64_t e = (uint64_t)ovta_elem_bytes(&p->isa.cfg, mt);
    if (e > a) a = e;
  }
  return a;
}

void ovta_program_layout(const ovta_program *p, uint64_t base, uint64_t *addr) {
  uint64_t a = ovta_program_align(p);
  if (a < 4096) a = 4096;
  uint64_t at = base;
  for (size_t i = 0; i < p->n_bufs; i++) {
    at = (at + a - 1) / a * a;
    addr[i] = at;
    at += p->bufs[i].size;
  }
}

/* dram_base=@NAME+N means element index addr(NAME) / elem_bytes(memory_type) + N. */
int ovta_program_encode(const ovta_program *p, const uint64_t *addr, uint8_t *out, ovta_error *err) {
  for (size_t i = 0; i < p->n_insns; i++) {
    ovta_insn in = p->insns[i].insn;
    int line = p->insns[i].line;
    int b = p->insns[i].dram_buf;
    if (b >= 0) {
      if ((size_t)b >= p->n_bufs) unreachable();
      uint64_t eb = (uint64_t)ovta_elem_bytes(&p->isa.cfg, in.memory_type);
      if (!eb)
        return OVTA_FAIL(err, OVTA_EPARSE, "%s:%d: dram_base=@%s needs a known memory_type, not %u",
                         p->origin, line, p->bufs[b].name, in.memory_type);
      if (addr[b] % eb)
        return OVTA_FAIL(err, OVTA_EPARSE,
                         "%s:%d: buffer '%s' at 0x%llx is not aligned to %s elements of %llu bytes",
                         p->origin, line, p->bufs[b].name, (unsigned long long)addr[b],
                         ovta_mem_type_name(in.memory_type), (unsigned long long)eb);
      uint64_t v = addr[b] / eb + in.dram_base;
      if (v > UINT32_MAX)
        return OVTA_FAIL(err, OVTA_EPARSE, "%s:%d: dram_base=@%s+%u resolves to %llu, beyond 32 bits",
                         p->origin, line, p->bufs[b].name, in.dram_base, (unsigned long long)v);
      in.dram_base = (uint32_t)v;
    }
    ovta_insn_bits bits;
    int rc = ovta_insn_encode(&p->isa, &in, &bits, err);
    if (rc) {
      if (err && line) ovta_error_wrap(err, "%s:%d", p->origin, line);
      else if (err) ovta_error_wrap(err, "%s: instruction %zu", p->origin, i);
      return rc;
    }
    ovta_insn_bits_store(&bits, out + 16 * i);
  }
  return OVTA_OK;
}

static const char *const data_kind_names[] = {"hex", "int8", "int32", "uop"};

const char *ovta_data_kind_name(ovta_data_kind k) {
  return (unsigned)k < sizeof data_kind_names / sizeof data_kind_names[0] ? data_kind_names[k] : NULL;
}

int ovta_data_kind_from_name(const char *s) {
  for (size_t i = 0; i < sizeof data_kind_names / sizeof data_kind_names[0]; i++)
    if (!strcmp(s, data_kind_names[i])) return (int)i;
  return -1;
}
