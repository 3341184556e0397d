/* progress.c: progress reports on stderr for long runs (ovta_tool.h section 4).
 *
 * On a terminal: one line redrawn in place, "\r<label> [#####.....] done/total rate extra",
 * at most every 100 ms, finished with a newline. Otherwise (a log, a pipe, CI): a plain line
 * each time another tenth of the total is done, once the run has taken a second (short runs
 * stay silent), so logs stay short and readable. */
#include "ovta_tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tool_progress_start(tool_progress *p, const char *label, int64_t total, bool quiet) {
  memset(p, 0, sizeof *p);
  p->label = label;
  p->total = total > 0 ? total : 1;
  p->quiet = quiet;
  p->tty = !quiet && isatty(STDERR_FILENO);
  p->t0 = ovta_now_s();
  p->t_last = -1;
}

void tool_progress_update(tool_progress *p, int64_t done, const char *extra) {
  if (p->quiet) return;
  if (done > p->total) done = p->total;
  double t = ovta_now_s(), el = t - p->t0;
  double rate = el > 0 ? (double)done / el : 0;
  if (p->tty) {
    if (done < p->total && p->t_last >= 0 && t - p->t_last < 0.1) return;
    p->t_last = t;
    char bar[31];
    int fill = (int)(30 * done / p->total);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r%s [%s] %lld/%lld %.1f/s%s%s\033[K", p->label, bar, (long long)done,
            (long long)p->total, rate, extra ? "  " : "", extra ? extra : "");
    p->drawn = true;
  } else {
    int tenth = (int)(10 * done / p->total);
    if (tenth <= p->last_tenth || el < 1.0) return;
    p->last_tenth = tenth;
    fprintf(stderr, "%s: %lld/%lld (%d%%), %.1f s, %.1f/s%s%s\n", p->label, (long long)done,
            (long long)p->total, tenth * 10, el, rate, extra ? ", " : "", extra ? extra : "");
  }
  fflush(stderr);
}

void tool_progress_finish(tool_progress *p) {
  if (p->tty && p->drawn) fputc('\n', stderr);
  p->drawn = false;
}
