/* remote.c: what `ovta run|profile|eval --remote HOST:PORT` share (ovta_tool.h, section 5): the
 * options, a session with a plan folder loaded on the server (plan/client.c), and one run whose
 * counters go into the folder's plan read here, so --stats and profiles print as for a local
 * run. */
#include "ovta_tool.h"

#include <stdio.h>
#include <string.h>

int tool_remote_opt(const char *cmd, int argc, char **argv, int *i, tool_remote *t) {
  const char *v;
  if (tool_opt(argc, argv, i, "--remote", &v)) {
    if (!v || !*v) return tool_usage(cmd, "--remote needs HOST:PORT");
    t->addr = v;
  } else if (tool_opt(argc, argv, i, "--token-file", &v)) {
    if (!v) return tool_usage(cmd, "--token-file needs a file");
    t->token_file = v;
  } else if (tool_opt(argc, argv, i, "--remote-timeout", &v)) {
    if (!v || !tool_number(v, 1, 86400, &t->timeout_s)) return tool_usage(cmd, "--remote-timeout needs seconds");
  } else {
    return 0;
  }
  return 1;
}

int tool_remote_open(const tool_remote *t, const char *dir, const char *backend, int threads, bool trace,
                     ovta_remote **r, ovta_plan *plan, ovta_error *err) {
  bool sent = false;
  *r = NULL;
  memset(plan, 0, sizeof *plan);
  int rc = ovta_plan_read(dir, plan, err);
  if (!rc) rc = ovta_remote_connect(t->addr, t->token_file, t->timeout_s ? (double)t->timeout_s : 300, r, err);
  if (!rc) rc = ovta_remote_open_plan(*r, dir, backend, threads, trace, &sent, err);
  if (!rc) fprintf(stderr, "ovta: remote %s: %s\n", t->addr, sent ? "plan sent" : "plan already there, not sent");
  return rc;
}

int tool_remote_run(ovta_remote *r, ovta_plan *plan, int n, const char *const *names, const ovta_array *vals,
                    ovta_remote_result *res, ovta_error *err) {
  int rc = ovta_remote_run(r, n, names, vals, res, err);
  if (!rc && res->stats) rc = ovta_remote_stats_apply(plan, res->stats, err);
  return rc;
}
