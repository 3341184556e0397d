/* simdram.c: simulated physical DRAM for the simulator backends (driver_impl.h section 1).
 *
 * One anonymous mapping of the whole region with MAP_NORESERVE: pages cost nothing until
 * touched. Invariant: every byte outside a live allocation is zero (fresh pages are zero, and
 * free zeroes what it releases: whole pages through madvise(MADV_DONTNEED), edges by memset),
 * so allocation needs no fill. Live allocations sit in an array sorted by address; allocation
 * is first fit over the gaps between them, lookups are binary searches behind a one-entry cache.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver_impl.h"

typedef struct simdram_block {
  uint64_t phys; /* first byte */
  uint64_t size; /* bytes asked for (the gap after it, up to the next aligned start, is free) */
  void *tag;     /* the owner's handle (the driver's ovta_buf) */
} simdram_block;

struct ovta_simdram {
  uint8_t *host;          /* the mapping */
  uint64_t base;          /* physical address of host[0] */
  size_t size;            /* bytes in the region */
  size_t align;           /* alignment of every allocation */
  simdram_block *blocks;  /* live allocations sorted by phys */
  size_t n, cap;          /* count and capacity of blocks */
  size_t last;            /* index of the block the last lookup hit (cache) */
};

int ovta_simdram_open(uint64_t base, size_t bytes, size_t align, ovta_simdram **out, ovta_error *err) {
  *out = NULL;
  if (bytes == 0) bytes = OVTA_SIMDRAM_DEFAULT_BYTES;
  if (align < 64 || (align & (align - 1)))
    return OVTA_FAIL(err, OVTA_EINVAL, "simulated DRAM: alignment %zu is not a power of two >= 64", align);
  if (base % align || base + bytes < base)
    return OVTA_FAIL(err, OVTA_EINVAL, "simulated DRAM: base 0x%llx is not aligned to %zu or the region wraps",
                     (unsigned long long)base, align);
  ovta_simdram *d = calloc(1, sizeof *d);
  if (!d) return OVTA_FAIL(err, OVTA_ENOMEM, "simulated DRAM: out of host memory");
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    free(d);
    return OVTA_FAIL(err, OVTA_ENOMEM, "simulated DRAM: cannot map %zu bytes", bytes);
  }
  d->host = p;
  d->base = base;
  d->size = bytes;
  d->align = align;
  *out = d;
  return OVTA_OK;
}

void ovta_simdram_close(ovta_simdram *d) {
  if (!d) return;
  munmap(d->host, d->size);
  free(d->blocks);
  free(d);
}

uint64_t ovta_simdram_base(const ovta_simdram *d) { return d->base; }
size_t ovta_simdram_size(const ovta_simdram *d) { return d->size; }
size_t ovta_simdram_count(const ovta_simdram *d) { return d->n; }

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

int ovta_simdram_alloc(ovta_simdram *d, size_t size, void *tag, uint64_t *phys, ovta_error *err) {
  if (size == 0) return OVTA_FAIL(err, OVTA_EINVAL, "simulated DRAM: allocation of 0 bytes");
  uint64_t end_region = d->base + d->size;
  if (size > d->size)
    return OVTA_FAIL(err, OVTA_ENOMEM, "simulated DRAM: %zu bytes asked, the region has %zu", size, d->size);
  /* first fit: the gap before block i starts at the aligned end of block i-1 */
  uint64_t start = d->base;
  size_t i = 0;
  for (; i <= d->n; i++) {
    uint64_t gap_end = i < d->n ? d->blocks[i].phys : end_region;
    if (start <= gap_end && gap_end - start >= size) break;
    if (i < d->n) start = align_up(d->blocks[i].phys + d->blocks[i].size, d->align);
  }
  if (i > d->n)
    return OVTA_FAIL(err, OVTA_ENOMEM, "simulated DRAM: no free range of %zu bytes (%zu live allocations in %zu bytes)",
                     size, d->n, d->size);
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 64;
    simdram_block *nb = realloc(d->blocks, cap * sizeof *nb);
    if (!nb) return OVTA_FAIL(err, OVTA_ENOMEM, "simulated DRAM: out of host memory");
    d->blocks = nb;
    d->cap = cap;
  }
  memmove(&d->blocks[i + 1], &d->blocks[i], (d->n - i) * sizeof *d->blocks);
  d->blocks[i] = (simdram_block){start, size, tag};
  d->n++;
  d->last = i;
  *phys = start;
  return OVTA_OK;
}

/* Index of the block with the greatest phys <= p, or d->n when none. */
static size_t find_block(ovta_simdram *d, uint64_t p) {
  if (d->last < d->n) {
    const simdram_block *b = &d->blocks[d->last];
    if (p >= b->phys && p - b->phys < b->size) return d->last;
  }
  size_t lo = 0, hi = d->n; /* first block with phys > p */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d->blocks[mid].phys <= p) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return d->n;
  d->last = lo - 1;
  return lo - 1;
}

void ovta_simdram_free(ovta_simdram *d, uint64_t phys) {
  size_t i = find_block(d, phys);
  if (i == d->n || d->blocks[i].phys != phys) return;
  /* zero what it held: whole pages are dropped, edges cleared */
  uint8_t *h = d->host + (phys - d->base);
  uint64_t size = d->blocks[i].size;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t off = phys - d->base;
  uint64_t p0 = align_up(off, page), p1 = (off + size) & ~(page - 1);
  if (p1 > p0) {
    memset(h, 0, p0 - off);
    if (madvise(d->host + p0, p1 - p0, MADV_DONTNEED) != 0) memset(d->host + p0, 0, p1 - p0);
    memset(d->host + p1, 0, off + size - p1);
  } else {
    memset(h, 0, size);
  }
  memmove(&d->blocks[i], &d->blocks[i + 1], (d->n - i - 1) * sizeof *d->blocks);
  d->n--;
  d->last = 0;
}

bool ovta_simdram_inside(ovta_simdram *d, uint64_t phys, uint64_t len) {
  size_t i = find_block(d, phys);
  if (i == d->n) return false;
  const simdram_block *b = &d->blocks[i];
  uint64_t off = phys - b->phys;
  return off < b->size && len <= b->size - off;
}

void *ovta_simdram_find(ovta_simdram *d, uint64_t phys) {
  size_t i = find_block(d, phys);
  if (i == d->n) return NULL;
  const simdram_block *b = &d->blocks[i];
  return phys - b->phys < b->size ? b->tag : NULL;
}

void *ovta_simdram_host(ovta_simdram *d, uint64_t phys, uint64_t len) {
  if (phys < d->base) return NULL;
  uint64_t off = phys - d->base;
  if (off > d->size || len > d->size - off) return NULL;
  return d->host + off;
}
