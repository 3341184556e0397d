/* Fuzz target: the tensor readers. Byte 0 chooses: even -> the rest is a TensorProto
 * (ovta_onnx_read_tensor_mem, the conformance data's input_N.pb); odd -> the rest is a .npy file
 * (ovta_npy_read, through an in-memory file). A tensor read must have data of exactly its shape's
 * size; a .npy tensor must write (ovta_npy_write) and read back to the same dtype, shape and bytes.
 * Every error must explain itself; nothing may crash, leak or allocate beyond the input's size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph.h"
#include "exec.h"

static void check_tensor(const ovta_tensor *t) {
  if (!t) abort();
  int64_t n = ovta_tensor_numel(t);
  if (n < 0 || t->nbytes != (size_t)n * ovta_dtype_size(t->dtype)) abort();
  if (t->nbytes && !t->data) abort();
}

static bool same(const ovta_tensor *a, const ovta_tensor *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}

static int npy_case(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0) return 0;
  if (size && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return 0;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ovta_tensor *t = NULL;
  ovta_error err = {0};
  int rc = ovta_npy_read(path, "x", &t, &err);
  if (rc == OVTA_OK) {
    check_tensor(t);
    int fd2 = memfd_create("again.npy", 0);
    if (fd2 >= 0) {
      char p2[64];
      snprintf(p2, sizeof p2, "/proc/self/fd/%d", fd2);
      ovta_error e2 = {0};
      if (ovta_npy_write(p2, t, &e2)) {
        if (e2.msg[0] == 0) abort();
      } else {
        ovta_tensor *u = NULL;
        if (ovta_npy_read(p2, "x", &u, &e2)) {
          fprintf(stderr, "written .npy does not read back: %s\n", e2.msg);
          abort();
        }
        if (!same(t, u)) abort();
        ovta_tensor_free(u);
      }
      close(fd2);
    }
    ovta_tensor_free(t);
  } else if (t || err.msg[0] == 0) {
    abort();
  }
  close(fd);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (data[0] & 1) return npy_case(data + 1, size - 1);
  ovta_tensor *t = NULL;
  ovta_error err = {0};
  int rc = ovta_onnx_read_tensor_mem(data + 1, size - 1, "fuzz.pb", &t, &err);
  if (rc == OVTA_OK) {
    check_tensor(t);
    ovta_tensor_free(t);
  } else if (t || err.msg[0] == 0) {
    abort();
  }
  return 0;
}
