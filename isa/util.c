/* util.c: small utilities of the base layer (ovta_base.h section 4): the clock, lists. */
#include "ovta_base.h"

#include <string.h>
#include <time.h>

double ovta_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bool ovta_list_next(const char **p, const char *seps, char *item, size_t cap) {
  const char *s = *p + strspn(*p, seps);
  size_t n = strcspn(s, seps);
  *p = s + n;
  if (n == 0) return false;
  size_t k = cap > 0 && n >= cap ? cap - 1 : n;
  if (cap > 0) memcpy(item, s, k), item[k] = 0;
  return true;
}

bool ovta_list_has(const char *list, const char *seps, const char *name) {
  char item[256];
  for (const char *p = list; ovta_list_next(&p, seps, item, sizeof item);)
    if (!strcmp(item, name)) return true;
  return false;
}
