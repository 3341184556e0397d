/* onnx_extdata.h: ONNX external data for the importer (onnx_extdata.c; internal to the graph layer). */
#ifndef OVTA_ONNX_EXTDATA_H
#define OVTA_ONNX_EXTDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "onnx.pb-c.h"

/* An opened, checked external data range. */
typedef struct onnx_ext {
  int fd;          /* the data file, -1 when closed */
  uint64_t offset; /* where the tensor's bytes start in it */
  const char *loc; /* the location as the model gives it (borrowed from the TensorProto) */
} onnx_ext;

/* Check tp's external_data (location inside dir, offset/length within the file and equal to
 * nbytes, the bytes its shape needs) and open the file. dir: the real path of the model's
 * directory, NULL when the model has none (read from memory or a pipe: refused). where names the
 * tensor in messages. On success read with onnx_ext_read (which closes). */
int onnx_ext_open(const Onnx__TensorProto *tp, const char *dir, const char *where, uint64_t nbytes, onnx_ext *x,
                  ovta_error *err);
/* Read the nbytes into dst, then close. */
int onnx_ext_read(onnx_ext *x, void *dst, uint64_t nbytes, const char *where, ovta_error *err);
void onnx_ext_close(onnx_ext *x);
/* The real path of the directory of the model file at path (malloc'd), or NULL in *dir when path is
 * no regular file (a pipe, a device). */
int onnx_model_dir(const char *path, char **dir, ovta_error *err);

#endif
