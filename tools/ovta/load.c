/* load.c: a parsed program into a device (ovta_tool.h section 3; isa/ASM.md, "Loading"). */
#include "ovta_tool.h"

#include <stdlib.h>
#include <string.h>

void ovta_loaded_free(ovta_loaded *l) {
  if (!l) return;
  for (size_t i = 0; l->bufs && i < l->n_bufs; i++) ovta_buf_free(l->bufs[i]);
  ovta_buf_free(l->stream);
  free(l->bufs);
  free(l->skew);
  free(l->addr);
  memset(l, 0, sizeof *l);
}

/* Allocate size bytes whose start (plus *skew) is a multiple of align: try the exact size first;
 * when the driver's address is not aligned, allocate align-1 bytes more and skip ahead. */
static int alloc_aligned(ovta_dev *dev, size_t size, uint64_t align, ovta_buf **out, size_t *skew,
                         ovta_error *err) {
  int rc = ovta_buf_alloc(dev, size, out, err);
  if (rc) return rc;
  *skew = 0;
  if ((*out)->phys % align == 0) return OVTA_OK;
  ovta_buf_free(*out);
  *out = NULL;
  rc = ovta_buf_alloc(dev, size + align - 1, out, err);
  if (rc) return rc;
  *skew = (size_t)((align - (*out)->phys % align) % align);
  return OVTA_OK;
}

int ovta_program_load(ovta_dev *dev, const ovta_program *p, ovta_loaded *l, ovta_error *err) {
  memset(l, 0, sizeof *l);
  if (p->n_insns > UINT32_MAX) return OVTA_FAIL(err, OVTA_EINVAL, "%s: too many instructions", p->origin);
  size_t n = p->n_bufs;
  l->bufs = calloc(n + 1, sizeof *l->bufs);
  l->skew = calloc(n + 1, sizeof *l->skew);
  l->addr = calloc(n + 1, sizeof *l->addr);
  uint8_t *stream = malloc(p->n_insns * 16 + 16);
  int rc = OVTA_OK;
  if (!l->bufs || !l->skew || !l->addr || !stream) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of host memory", p->origin);
    goto fail;
  }
  l->n_bufs = n;
  uint64_t align = ovta_program_align(p);
  for (size_t i = 0; i < n; i++) {
    rc = alloc_aligned(dev, p->bufs[i].size, align, &l->bufs[i], &l->skew[i], err);
    if (rc) {
      ovta_error_wrap(err, "%s:%d: buffer '%s' of %llu bytes", p->origin, p->bufs[i].line, p->bufs[i].name,
                      (unsigned long long)p->bufs[i].size);
      goto fail;
    }
    l->addr[i] = l->bufs[i]->phys + l->skew[i];
  }
  rc = ovta_program_encode(p, l->addr, stream, err);
  if (rc) goto fail;
  for (size_t i = 0; i < n; i++) {
    rc = ovta_buf_write(l->bufs[i], l->skew[i], p->bufs[i].init, p->bufs[i].size, err);
    if (rc) goto fail;
  }
  size_t sbytes = p->n_insns * 16;
  if (p->insn_buf >= 0) {
    int b = p->insn_buf;
    if (sbytes) rc = ovta_buf_write(l->bufs[b], l->skew[b] + p->insn_off, stream, sbytes, err);
    if (rc) goto fail;
    l->insn_phys = l->addr[b] + p->insn_off;
  } else {
    rc = ovta_buf_alloc(dev, sbytes ? sbytes : 16, &l->stream, err);
    if (!rc && sbytes) rc = ovta_buf_write(l->stream, 0, stream, sbytes, err);
    if (rc) goto fail;
    l->insn_phys = l->stream->phys;
  }
  l->insn_count = (uint32_t)p->n_insns;
  free(stream);
  return OVTA_OK;
fail:
  free(stream);
  ovta_loaded_free(l);
  return rc;
}

int ovta_loaded_read(const ovta_loaded *l, int b, uint64_t off, void *dst, size_t n, ovta_error *err) {
  if (b < 0 || (size_t)b >= l->n_bufs) return OVTA_FAIL(err, OVTA_EINVAL, "no program buffer %d", b);
  return ovta_buf_read(l->bufs[b], l->skew[b] + off, dst, n, err);
}
