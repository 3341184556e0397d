/* cmd_config.c: `ovta config [NAME] [--list] [--json]`: a hardware config and what follows from it. */
#include "ovta_tool.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#ifndef OVTA_SRC_DIR
#define OVTA_SRC_DIR "."
#endif

static const char *help =
    "usage: ovta config [NAME|PATH] [--json]\n"
    "       ovta config --list\n\n"
    "Show a hardware config (default: $OVTA_CONFIG or \"default\"): its keys, the values derived\n"
    "from them (element sizes, SRAM depths, index widths) and where every instruction field sits.\n\n"
    "options:\n"
    "  --json   print the keys and derived values as JSON\n"
    "  --list   list the configs: $OVTA_CONFIG_PATH/*.json, isa/configs/*.json, boards/*/config.json\n";

/* Print the names of NAME.json in dir (suffix ".json") or of DIR/NAME/config.json (boards). */
static void list_dir(const char *dir, bool boards, const char *what) {
  DIR *d = opendir(dir);
  if (!d) return;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    if (e->d_name[0] == '.') continue;
    size_t len = strlen(e->d_name);
    if (boards) {
      char p[4096];
      snprintf(p, sizeof p, "%s/%s/config.json", dir, e->d_name);
      FILE *f = fopen(p, "r");
      if (!f) continue;
      fclose(f);
      names[n++] = strdup(e->d_name);
    } else if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
      names[n] = strndup(e->d_name, len - 5);
      if (names[n]) n++;
    }
  }
  closedir(d);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (names[i] && names[j] && strcmp(names[i], names[j]) > 0) {
        char *t = names[i];
        names[i] = names[j];
        names[j] = t;
      }
  for (int i = 0; i < n; i++) {
    if (names[i]) printf("%-12s %s (%s)\n", names[i], what, dir);
    free(names[i]);
  }
}

static int list(void) {
  const char *env = getenv("OVTA_CONFIG_PATH");
  if (env) {
    char *copy = strdup(env);
    for (char *s = copy ? strtok(copy, ":") : NULL; s; s = strtok(NULL, ":")) list_dir(s, false, "config");
    free(copy);
  }
  list_dir(OVTA_SRC_DIR "/isa/configs", false, "config");
  list_dir(OVTA_SRC_DIR "/boards", true, "board");
  return 0;
}

int ovta_cmd_config(int argc, char **argv) {
  const char *name = NULL;
  bool json = false, lst = false;
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) return fputs(help, stdout), 0;
    if (tool_opt(argc, argv, &i, "--json", NULL)) json = true;
    else if (tool_opt(argc, argv, &i, "--list", NULL)) lst = true;
    else if (argv[i][0] == '-') return tool_usage("config", "unknown option '%s'", argv[i]);
    else if (name) return tool_usage("config", "more than one config ('%s' and '%s')", name, argv[i]);
    else name = argv[i];
  }
  if (lst) return list();
  ovta_config cfg;
  ovta_error err;
  ovta_isa *isa = malloc(sizeof *isa);
  if (!isa) return tool_fail("out of memory");
  if (ovta_config_load(tool_config_name(name), &cfg, &err) || ovta_isa_init(isa, &cfg, &err)) {
    free(isa);
    return tool_error(&err, NULL);
  }
  char *js = ovta_config_to_json(&cfg, true);
  if (!js) {
    free(isa);
    return tool_fail("out of memory");
  }
  if (json) {
    printf("%s\n", js);
  } else {
    printf("config %s (%s)\n", cfg.name, cfg.path[0] ? cfg.path : "built in");
    cJSON *o = cJSON_Parse(js);
    cJSON *it;
    cJSON_ArrayForEach(it, o) if (cJSON_IsNumber(it)) printf("  %-20s %d\n", it->string, it->valueint);
    printf("derived:\n");
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "derived")) printf("  %-20s %d\n", it->string, it->valueint);
    cJSON_Delete(o);
    printf("  %-20s %d\n  %-20s %d\n  %-20s %d\n  %-20s %d\n  %-20s %d\n", "uop_idx bits",
           cfg.uop_idx_bits, "inp_idx bits", cfg.inp_idx_bits, "wgt_idx bits", cfg.wgt_idx_bits,
           "acc_idx bits", cfg.acc_idx_bits, "src_idx bits", cfg.src_idx_bits);
    for (int f = 0; f < OVTA_FMT_COUNT; f++) {
      int n;
      const ovta_field_spec *s = ovta_format_specs((ovta_format)f, &n);
      printf("format %s:", ovta_format_name((ovta_format)f));
      for (int i = 0; i < n; i++) {
        if (!s[i].name) continue;
        ovta_field_pos p = isa->pos[f][i];
        if (p.width == 1) printf(" %s[%d]", s[i].name, p.lo);
        else printf(" %s[%d:%d]", s[i].name, p.lo + p.width - 1, p.lo);
      }
      printf("\n");
    }
  }
  free(js);
  free(isa);
  return 0;
}
