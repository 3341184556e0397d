/* timing.c: time per phase (ovta_base.h section 4, "Time per phase"): the table behind
 * `ovta compile --time-passes`. Rows keyed by name and parent; each begin reads both clocks,
 * each end adds the differences to the row of the phase it closes. */
#include "ovta_base.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* CPU seconds of this process (all threads) and of its children waited for (the linker). */
static double cpu_now(void) {
  struct rusage ru;
  double c = ovta_cpu_s();
  if (!getrusage(RUSAGE_CHILDREN, &ru))
    c += (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return c;
}

/* The row of name under parent, added when missing; -1 when out of memory. */
static int row_of(ovta_timing *t, const char *name, int parent) {
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].parent == parent && !strcmp(t->rows[i].name, name)) return i;
  if (t->n == t->cap) {
    int cap = t->cap * 2 + 16;
    ovta_timing_row *r = realloc(t->rows, (size_t)cap * sizeof *r);
    if (!r) return -1;
    t->rows = r, t->cap = cap;
  }
  ovta_timing_row *r = &t->rows[t->n];
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->parent = parent;
  r->depth = parent < 0 ? 0 : t->rows[parent].depth + 1;
  return t->n++;
}

void ovta_timing_begin(ovta_timing *t, const char *fmt, ...) {
  if (!t) return;
  char name[sizeof t->rows[0].name];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  int i = t->skipped || t->nopen == OVTA_TIMING_DEPTH ? -1 : row_of(t, name, t->nopen ? t->open[t->nopen - 1] : -1);
  if (i < 0) {
    t->skipped++;
    return;
  }
  t->rows[i].runs++;
  t->open[t->nopen] = i;
  t->t_cpu[t->nopen] = cpu_now();
  t->t_wall[t->nopen++] = ovta_now_s();
}

void ovta_timing_end(ovta_timing *t) {
  if (!t) return;
  if (t->skipped) {
    t->skipped--;
    return;
  }
  if (!t->nopen) return;
  int k = --t->nopen;
  ovta_timing_row *r = &t->rows[t->open[k]];
  r->wall += ovta_now_s() - t->t_wall[k];
  r->cpu += cpu_now() - t->t_cpu[k];
}

void ovta_timing_print(const ovta_timing *t, FILE *f, const char *title) {
  if (!t) return;
  double wall = 0, cpu = 0;
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].depth == 0) wall += t->rows[i].wall, cpu += t->rows[i].cpu;
  fprintf(f, "===-------------------------------------------------------------------------===\n");
  fprintf(f, "  %s\n", title);
  fprintf(f, "===-------------------------------------------------------------------------===\n");
  fprintf(f, "  %9s %7s %9s %5s  %s\n", "wall (s)", "wall %", "CPU (s)", "runs", "phase");
  for (int i = 0; i < t->n; i++) {
    const ovta_timing_row *r = &t->rows[i];
    fprintf(f, "  %9.3f %6.1f%% %9.3f %5d  %*s%s\n", r->wall, wall > 0 ? 100.0 * r->wall / wall : 0.0, r->cpu, r->runs,
            2 * r->depth, "", r->name);
  }
  fprintf(f, "  %9.3f %6.1f%% %9.3f %5s  %s\n", wall, 100.0, cpu, "", "total");
}

void ovta_timing_free(ovta_timing *t) {
  if (!t) return;
  free(t->rows);
  memset(t, 0, sizeof *t);
}
