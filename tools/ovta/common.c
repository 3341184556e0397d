/* common.c: helpers shared by the subcommands (ovta_tool.h section 2). */
#include "ovta_tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tool_fail(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "ovta: error: %s\n", msg);
  return 1;
}

int tool_error(const ovta_error *err, const ovta_asm_diag *diag) {
  fprintf(stderr, "ovta: error: %s\n", err->msg);
  if (getenv("OVTA_DEBUG")) fprintf(stderr, "  (%s, raised at %s:%d)\n", ovta_rc_name(err->code),
                                    err->file ? err->file : "?", err->line);
  if (diag && diag->line) fputs(diag->context, stderr);
  return 1;
}

int tool_usage(const char *cmd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "ovta: error: %s (see `ovta %s --help`)\n", msg, cmd);
  return 2;
}

bool tool_is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }

bool tool_opt(int argc, char **argv, int *i, const char *name, const char **val) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n)) return false;
  if (a[n] == '=' && val) {
    *val = a + n + 1;
    return true;
  }
  if (a[n]) return false;
  if (val) {
    *val = *i + 1 < argc ? argv[++*i] : NULL;
  }
  return true;
}

const char *tool_self_exe(void) {
  static char self[4096];
  if (!self[0]) {
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    else snprintf(self, sizeof self, "ovta");
    size_t len = strlen(self); /* the binary was replaced while running (a rebuild): its path */
    if (len > 10 && !strcmp(self + len - 10, " (deleted)")) self[len - 10] = 0;
  }
  return self;
}

int tool_opt_table(int argc, char **argv, int *i, const char *cmd, const tool_numopt *nums, int nn,
                   const tool_stropt *strs, int ns) {
  const char *v;
  for (int k = 0; k < nn; k++)
    if (tool_opt(argc, argv, i, nums[k].name, &v)) {
      if (!v || !tool_number(v, nums[k].lo, nums[k].hi, nums[k].dst))
        return tool_usage(cmd, "%s needs a number", nums[k].name);
      return 1;
    }
  for (int k = 0; k < ns; k++)
    if (tool_opt(argc, argv, i, strs[k].name, &v)) {
      if (!v) return tool_usage(cmd, "%s needs a value", strs[k].name);
      *strs[k].dst = v;
      return 1;
    }
  return 0;
}

bool tool_number(const char *s, int64_t min, int64_t max, int64_t *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
  if (*end || errno || v < min || v > max) return false;
  *out = v;
  return true;
}

#ifdef OVTA_HAVE_DRIVER
int tool_dram_latency(const char *cmd, const char *s, ovta_dev_opts *o) {
  char r[32];
  snprintf(r, sizeof r, "%s", s);
  char *w = strchr(r, ',');
  if (w) *w++ = 0;
  int64_t rv, wv = 0;
  if (!tool_number(r, 1, 1000000, &rv) || (w && !tool_number(w, 1, 1000000, &wv)))
    return tool_usage(cmd, "--dram-latency '%s': READ[,WRITE] cycles, 1..1000000", s);
  o->dram_latency = (unsigned)rv, o->dram_write_latency = (unsigned)wv;
  return 0;
}

int tool_dram_bw(const char *cmd, const char *s, ovta_dev_opts *o) {
  int64_t n;
  const char *slash = strchr(s, '/');
  if (slash) {
    char num[32];
    snprintf(num, sizeof num, "%.*s", (int)(slash - s), s);
    if (strcmp(slash + 1, "16") || !tool_number(num, 1, 16, &n))
      return tool_usage(cmd, "--dram-bw '%s': N/16 beats per cycle with N 1..16", s);
  } else {
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (!*s || *end || errno || !(d * 16 >= 1 - 1e-9 && d <= 1 + 1e-9) || d * 16 != (double)(int64_t)(d * 16 + 0.5))
      return tool_usage(cmd, "--dram-bw '%s': beats per cycle, a multiple of 1/16 from 0.0625 to 1", s);
    n = (int64_t)(d * 16 + 0.5);
  }
  o->dram_beats_x16 = (unsigned)n;
  return 0;
}
#endif

const char *tool_config_name(const char *opt) {
  if (opt) return opt;
  const char *env = getenv("OVTA_CONFIG");
  return env && *env ? env : "default";
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

int tool_read_program(const char *path, tool_input how, const char *cfg_opt, ovta_program *out) {
  ovta_error err;
  char *data;
  size_t len;
  if (ovta_read_file(path, 1u << 30, &data, &len, &err)) return tool_error(&err, NULL);
  if (how == TOOL_INPUT_AUTO) {
    if (ends_with(path, ".s") || ends_with(path, ".S") || ends_with(path, ".asm")) how = TOOL_INPUT_TEXT;
    else if (ends_with(path, ".bin")) how = TOOL_INPUT_BINARY;
    else how = memchr(data, 0, len) ? TOOL_INPUT_BINARY : TOOL_INPUT_TEXT;
  }
  ovta_config cfg;
  if (ovta_config_load(tool_config_name(cfg_opt), &cfg, &err)) {
    free(data);
    return tool_error(&err, NULL);
  }
  int rc;
  if (how == TOOL_INPUT_BINARY) {
    ovta_isa isa;
    rc = ovta_isa_init(&isa, &cfg, &err);
    if (!rc) rc = ovta_disasm_binary(&isa, (const uint8_t *)data, len, path, out, &err);
    free(data);
    return rc ? tool_error(&err, NULL) : 0;
  }
  if (strlen(data) != len) {
    free(data);
    return tool_fail("%s: a NUL byte in a text program (use --binary for a raw instruction stream)", path);
  }
  ovta_asm_diag diag;
  rc = ovta_asm_parse(data, path, &cfg, out, &diag, &err);
  free(data);
  if (rc) return tool_error(&err, &diag);
  if (cfg_opt && out->config[0] && strcmp(out->isa.cfg.name, cfg.name)) {
    int r = tool_fail("%s: the program is for config '%s' (.config) but --config says '%s'", path,
                      out->isa.cfg.name, cfg.name);
    ovta_program_free(out);
    return r;
  }
  return 0;
}

/* ---------------------------------------------------------------- Plots (gnuplot) */

/* Run gnuplot with -e DEFS SCRIPT; 0 when it exits 0. */
int tool_gnuplot(const char *defs, const char *script, ovta_error *err) {
  pid_t pid = fork();
  if (pid < 0) return OVTA_FAIL(err, OVTA_EIO, "fork: %s", strerror(errno));
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", "-e", defs, script, (char *)NULL);
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "plots need gnuplot (Debian: apt-get install gnuplot-nox)");
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return OVTA_FAIL(err, OVTA_EIO, "gnuplot %s failed (status %d)", script, st);
  return 0;
}

/* The gnuplot terminal: pngcairo when gnuplot has it, else png, else svg. */
const char *tool_plot_terminal(void) {
  static char term[16];
  if (term[0]) return term;
  snprintf(term, sizeof term, "svg");
  FILE *f = popen("gnuplot -e 'set terminal' 2>&1", "r");
  if (!f) return term;
  char line[256];
  bool cairo = false, png = false;
  while (fgets(line, sizeof line, f)) {
    char w[64];
    if (sscanf(line, " %63s", w) == 1) cairo |= !strcmp(w, "pngcairo"), png |= !strcmp(w, "png");
  }
  pclose(f);
  if (cairo) snprintf(term, sizeof term, "pngcairo");
  else if (png) snprintf(term, sizeof term, "png");
  return term;
}

