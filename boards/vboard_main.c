/* ovta-vboard: the virtual board (driver/ovta_vboard.h) as its own process, so any program
 * using the "zynq" backend can talk to it as to a real board:
 *
 *   build/ovta-vboard --config default --dir /dev/shm/ovta-vb &
 *   OVTA_ZYNQ_REGS=/dev/shm/ovta-vb/regs OVTA_ZYNQ_DMA=/dev/shm/ovta-vb/udmabuf0 \
 *   OVTA_ZYNQ_DMA_SYSFS=/dev/shm/ovta-vb/sysfs/udmabuf0 build/ovta sim prog.s --backend zynq
 *
 * Serves until SIGINT or SIGTERM, then removes its files. Killed with SIGKILL it cannot; the next
 * start removes such stale boards (their lock is free) and says so. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovta_vboard.h"


static int usage(FILE *f) {
  fprintf(f, "usage: ovta-vboard [--config NAME] [--dir DIR] [--dma-mib N] [--fault SPEC]\n"
             "Serve the Verilator model of config NAME (default: default) behind a register window and\n"
             "DMA region in DIR (default: a fresh directory in /dev/shm), as the zynq backend expects.\n"
             "--fault SPEC: faults the model's DRAM injects (hw/sim/README.md, \"Faults\"; default:\n"
             "$OVTA_TSIM_FAULT). Stale boards of killed servers are removed at start.\n");
  return f == stderr ? 2 : 0;
}

int main(int argc, char **argv) {
  const char *config = "default", *dir = NULL, *fault = getenv("OVTA_TSIM_FAULT");
  size_t mib = 64;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout);
    if (i + 1 >= argc) return usage(stderr);
    if (!strcmp(argv[i], "--config")) config = argv[++i];
    else if (!strcmp(argv[i], "--dir")) dir = argv[++i];
    else if (!strcmp(argv[i], "--dma-mib")) mib = (size_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--fault")) fault = argv[++i];
    else return usage(stderr);
  }
  ovta_config cfg;
  ovta_error err = {0};
  if (ovta_config_load(config, &cfg, &err)) {
    fprintf(stderr, "ovta-vboard: %s\n", err.msg);
    return 1;
  }
  ovta_vboard_opts o = {0};
  o.dir = dir;
  o.dma_bytes = mib << 20;
  o.faults = fault && *fault ? fault : NULL;
  /* SIGINT/SIGTERM blocked here and in the server thread; main waits for them */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  ovta_vboard *vb;
  if (ovta_vboard_start(&cfg, &o, &vb, &err)) {
    fprintf(stderr, "ovta-vboard: %s\n", err.msg);
    return 1;
  }
  const char *d = ovta_vboard_dir(vb);
  if (ovta_vboard_cleaned(vb)[0])
    printf("ovta-vboard: removed stale board files of killed servers: %s\n", ovta_vboard_cleaned(vb));
  printf("ovta-vboard: config %s serving in %s\n"
         "  OVTA_ZYNQ_REGS=%s/regs OVTA_ZYNQ_DMA=%s/udmabuf0 OVTA_ZYNQ_DMA_SYSFS=%s/sysfs/udmabuf0\n",
         cfg.name, d, d, d, d);
  fflush(stdout);
  int sig = 0;
  sigwait(&sigs, &sig);
  uint64_t w, r;
  ovta_vboard_stats(vb, &w, &r);
  ovta_vboard_stop(vb);
  printf("ovta-vboard: stopped after %llu runs (%llu register writes)\n", (unsigned long long)r,
         (unsigned long long)w);
  return 0;
}
