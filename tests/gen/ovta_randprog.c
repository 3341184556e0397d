/* ovta-randprog: random valid programs (tests/gen/randprog.h) from the command line.
 *
 *   ovta-randprog [--config NAME] [--seed N] [-o FILE.s] [OPTIONS]   one program as assembler text
 *   ovta-randprog --diff [--config NAME] [--seeds A:B] [--backends LIST] [--fail-dir DIR] [OPTIONS]
 *
 * --diff runs every seed in [A, B] on the backend specs (default $OVTA_DIFF_BACKENDS, else
 * "fsim,fsim-interleaved"), compares each with the sequential reference, prints every mismatch
 * with its seed (the program is saved as DIR/CONFIG-SEED.s, runnable with `ovta sim`) and a
 * summary line; exit 1 on any mismatch. */
#include <stdlib.h>
#include <string.h>

#include "randprog.h"

static int usage(void) {
  fputs("usage: ovta-randprog [--config NAME] [--seed N] [-o FILE.s] [OPTIONS]\n"
        "       ovta-randprog --diff [--config NAME] [--seeds A:B] [--backends LIST] [--fail-dir DIR] [OPTIONS]\n"
        "options: --tiles N  --ops N  --uops N  --iters N  --no-hermetic\n",
        stderr);
  return 2;
}

int main(int argc, char **argv) {
  const char *config = "small", *outp = NULL, *backends = NULL, *fail_dir = "build/randprog-fail";
  unsigned long long seed = 1, s0 = 1, s1 = 100;
  bool diff = false;
  rp_opts o;
  rp_opts_default(&o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && v && (i++, 1))
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage() - 2;
    else if (!strcmp(a, "--diff")) diff = true;
    else if (!strcmp(a, "--no-hermetic")) o.hermetic = false;
    else if (ARG("--config")) config = v;
    else if (ARG("--seed")) seed = strtoull(v, NULL, 0);
    else if (ARG("-o")) outp = v;
    else if (ARG("--backends")) backends = v;
    else if (ARG("--fail-dir")) fail_dir = v;
    else if (ARG("--tiles")) o.max_tiles = atoi(v);
    else if (ARG("--ops")) o.max_ops = atoi(v);
    else if (ARG("--uops")) o.max_uops = atoi(v);
    else if (ARG("--iters")) o.max_iters = atoi(v);
    else if (ARG("--seeds")) {
      if (sscanf(v, "%llu:%llu", &s0, &s1) != 2 || s1 < s0) return usage();
    } else return usage();
#undef ARG
  }
  if (diff) {
    unsigned long long bad = 0, n = 0;
    for (unsigned long long s = s0; s <= s1; s++, n++) {
      char why[1024];
      int rc = rp_diff(config, &o, s, backends, fail_dir, why, sizeof why);
      if (rc) {
        bad++;
        printf("MISMATCH seed %llu: %s\n", s, why);
        fflush(stdout);
        if (rc < 0 || bad >= 20) break;
      }
    }
    printf("{\"config\": \"%s\", \"backends\": \"%s\", \"programs\": %llu, \"mismatches\": %llu}\n", config,
           backends ? backends : rp_diff_backends(), n, bad);
    return bad ? 1 : 0;
  }
  ovta_config cfg;
  ovta_isa isa;
  ovta_error err;
  ovta_program p;
  if (ovta_config_load(config, &cfg, &err) || ovta_isa_init(&isa, &cfg, &err) || rp_generate(&isa, &o, seed, &p, &err)) {
    ovta_error_print(stderr, &err);
    return 1;
  }
  FILE *f = outp ? fopen(outp, "w") : stdout;
  if (!f) {
    fprintf(stderr, "ovta-randprog: error: cannot write %s\n", outp);
    ovta_program_free(&p);
    return 1;
  }
  fprintf(f, "# ovta-randprog --config %s --seed %llu\n", config, seed);
  int rc = ovta_program_write(f, &p, &err);
  if (outp) fclose(f);
  ovta_program_free(&p);
  if (rc) ovta_error_print(stderr, &err);
  return rc ? 1 : 0;
}
