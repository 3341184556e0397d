/* npy.c: NumPy .npy files <-> tensors (graph.h section 10): the format itself is isa/array.c's
 * (ovta_npy_load / ovta_npy_store, shared with the plan runtime); this wraps it in tensors. */
#include "graph.h"

#include <stdlib.h>

int ovta_npy_read(const char *path, const char *name, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  ovta_array a = {0};
  int rc = ovta_npy_load(path, &a, err);
  if (rc) return rc;
  ovta_tensor *t = ovta_tensor_new(name, a.dtype, a.rank, a.shape);
  if (!t) {
    ovta_array_clear(&a);
    return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
  }
  t->data = a.data, t->nbytes = a.nbytes; /* the tensor takes the array's data (malloc'd) */
  *out = t;
  return 0;
}

int ovta_npy_write(const char *path, const ovta_tensor *t, ovta_error *err) {
  return ovta_npy_store(path, t->name, t->dtype, t->rank, t->shape, t->data, t->nbytes, err);
}
