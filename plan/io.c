/* io.c: what the two commands that run plans share (ovta_plan.h section 5): `ovta run`
 * (tools/ovta/cmd_run.c) and `ovta-rt run` (tools/ovta-rt/main.c) feed inputs by name, write the
 * outputs as .npy files and print --stats through these, so both print the same lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ovta_plan.h"

/* Input name of graph input i. */
static const char *in_name(const ovta_plan *p, int i) { return p->t[p->in[i]].name; }

int ovta_plan_set_inputs(ovta_plan *p, int n, const char *const *names, const char *const *files,
                         const ovta_array *vals, ovta_error *err) {
  for (int i = 0; i < p->nin; i++) {
    const char *nm = in_name(p, i);
    int k = 0;
    while (k < n && strcmp(names[k], nm) != 0) k++;
    if (k == n) return OVTA_FAIL(err, OVTA_EINVAL, "graph input %s has no --input %s=FILE.npy", nm, nm);
    const ovta_array *v = &vals[k];
    int rc = ovta_plan_set_input(p, nm, v->dtype, v->rank, v->shape, v->data, v->nbytes, err);
    if (rc) { /* name the file */
      char m[sizeof err->msg];
      snprintf(m, sizeof m, "%s", err->msg);
      snprintf(err->msg, sizeof err->msg, "%.150s: %.600s", files[k], m);
      return rc;
    }
  }
  for (int k = 0; k < n; k++) {
    bool found = false;
    for (int i = 0; i < p->nin; i++) found |= strcmp(in_name(p, i), names[k]) == 0;
    if (!found) return OVTA_FAIL(err, OVTA_EINVAL, "--input %s: the model has no input of that name", names[k]);
  }
  return 0;
}

/* DIR/NAME.npy for output NAME, with NAME's unsafe characters as '_'. */
static void output_path(const char *dir, const char *name, char *path, size_t len) {
  char fn[512];
  size_t k = 0;
  for (const char *c = name; *c && k < sizeof fn - 1; c++)
    fn[k++] = ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
               *c == '-' || *c == '_') ? *c : '_';
  fn[k] = 0;
  snprintf(path, len, "%s/%s.npy", dir, fn);
}

int ovta_plan_write_array(const char *dir, const char *name, const ovta_array *a, FILE *log, ovta_error *err) {
  char path[4096], shape[128];
  output_path(dir, name, path, sizeof path);
  int rc = ovta_npy_store(path, name, a->dtype, a->rank, a->shape, a->data, a->nbytes, err);
  ovta_shape_text(a->shape, a->rank, shape, sizeof shape);
  if (!rc && log) fprintf(log, "%s: %s %s -> %s\n", name, ovta_dtype_name(a->dtype), shape, path);
  return rc;
}

int ovta_plan_write_outputs(const ovta_plan *p, const char *dir, FILE *log, ovta_error *err) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", dir, strerror(errno));
  for (int i = 0; i < p->nout; i++) {
    ovta_array a = {0};
    int rc = ovta_plan_get_output(p, i, &a, err);
    if (!rc) rc = ovta_plan_write_array(dir, p->t[p->out[i]].name, &a, log, err);
    ovta_array_clear(&a);
    if (rc) return rc;
  }
  return 0;
}

int ovta_plan_print_stats(const ovta_plan *p, FILE *f, ovta_error *err) {
  for (int i = 0; i < p->ns; i++) {
    ovta_plan_stats st;
    int rc = ovta_plan_stats_get(p, i, &st, err);
    if (rc) return rc;
    if (!st.accel) {
      fprintf(f, "node %s: cpu, runs %llu\n", st.node, (unsigned long long)st.runs);
      continue;
    }
    fprintf(f,
            "node %s: accel, runs %llu, insns %llu (device retired %llu), uops recorded %llu, gemm uops %llu, alu uops "
            "%llu",
            st.node, (unsigned long long)st.runs, (unsigned long long)st.insns, (unsigned long long)st.dev_insns,
            (unsigned long long)st.uops_recorded, (unsigned long long)st.gemm_uops, (unsigned long long)st.alu_uops);
    if (st.has_cycles) fprintf(f, ", cycles %llu", (unsigned long long)st.cycles);
    fprintf(f, "\n");
  }
  return 0;
}
