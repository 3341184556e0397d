/* image.c: PNG images as ovta tensors (Debian's libpng, -lpng).
 *
 * tool_png_read: one PNG -> uint8 [H,W] (gray) or [C,H,W] (gray+alpha C=2, RGB C=3, RGBA C=4),
 * the layout of a sample of an images .npy. libpng transforms do the conversions: palette ->
 * RGB (RGBA with a tRNS chunk), gray of 1/2/4 bits -> 8 bits, 16 bits -> 8 bits (scaled),
 * interlacing. Every libpng error comes back through setjmp/longjmp as one error naming the
 * file; dimensions are capped (TOOL_PNG_MAX_DIM) before anything is allocated.
 *
 * tool_input_read: a model input value given as a file: a PNG (by its .png suffix or its
 * signature) becomes float32 [1,C,H,W] = pixel/255; anything else is read as .npy.
 */
#include "ovta_tool.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <png.h>

#include "exec.h"

typedef struct png_ctx {
  char msg[200];  /* the first libpng error */
  char warn[200]; /* the first libpng warning (e.g. "Image width exceeds user limit in IHDR") */
} png_ctx;

static void on_error(png_structp png, png_const_charp msg) {
  png_ctx *c = png_get_error_ptr(png);
  if (c && !c->msg[0]) snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "unknown error");
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { /* kept for an error that follows */
  png_ctx *c = png_get_error_ptr(png);
  if (c && !c->warn[0]) snprintf(c->warn, sizeof c->warn, "%s", msg ? msg : "");
}

static bool has_png_signature(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  unsigned char sig[8];
  bool yes = fread(sig, 1, 8, f) == 8 && png_sig_cmp(sig, 0, 8) == 0;
  fclose(f);
  return yes;
}

bool tool_is_png(const char *path) {
  size_t n = strlen(path);
  return (n > 4 && strcasecmp(path + n - 4, ".png") == 0) || has_png_signature(path);
}

int tool_png_read(const char *path, const char *name, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  unsigned char sig[8];
  size_t got = fread(sig, 1, 8, f);
  if (got != 8 || png_sig_cmp(sig, 0, 8) != 0) {
    fclose(f);
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: not a PNG file (no PNG signature)", path);
  }
  png_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
    fclose(f);
    return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
  }
  /* written after setjmp, read after a longjmp: volatile */
  unsigned char *volatile pix = NULL;
  png_bytep *volatile rows = NULL;
  ovta_tensor *volatile t = NULL;
  int rc = 0;
  if (setjmp(png_jmpbuf(png))) {
    if (!ctx.warn[0] && feof(f)) snprintf(ctx.warn, sizeof ctx.warn, "the file is truncated");
    rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: bad PNG: %s%s%s%s", path, ctx.msg[0] ? ctx.msg : "libpng error",
                   ctx.warn[0] ? " (" : "", ctx.warn, ctx.warn[0] ? ")" : "");
    goto done;
  }
  png_init_io(png, f);
  png_set_sig_bytes(png, 8);
  png_set_user_limits(png, TOOL_PNG_MAX_DIM, TOOL_PNG_MAX_DIM); /* libpng checks IHDR against these */
  png_read_info(png, info);
  png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  int ct = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  if (w == 0 || h == 0 || w > TOOL_PNG_MAX_DIM || h > TOOL_PNG_MAX_DIM) {
    rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: image is %lux%lu; at most %dx%d is accepted", path, (unsigned long)w,
                   (unsigned long)h, TOOL_PNG_MAX_DIM, TOOL_PNG_MAX_DIM);
    goto done;
  }
  if (ct == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  }
  if (ct == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (depth == 16) png_set_scale_16(png);
  (void)png_set_interlace_handling(png);
  png_read_update_info(png, info);
  int ch = png_get_channels(png, info);
  size_t rowbytes = png_get_rowbytes(png, info);
  if (png_get_bit_depth(png, info) != 8 || ch < 1 || ch > 4 || rowbytes != (size_t)w * (size_t)ch) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: unsupported PNG layout (color type %d, %d bits)", path, ct, depth);
    goto done;
  }
  pix = malloc((size_t)h * rowbytes);
  rows = malloc((size_t)h * sizeof *rows);
  if (!pix || !rows) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory for a %lux%lu image", path, (unsigned long)w, (unsigned long)h);
    goto done;
  }
  for (png_uint_32 y = 0; y < h; y++) rows[y] = pix + (size_t)y * rowbytes;
  png_read_image(png, rows);
  png_read_end(png, NULL); /* a file cut after the image data fails here */
  int64_t shape[3] = {ch, (int64_t)h, (int64_t)w};
  t = ch == 1 ? ovta_tensor_new(name, OVTA_DT_U8, 2, shape + 1) : ovta_tensor_new(name, OVTA_DT_U8, 3, shape);
  if (!t) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = ovta_tensor_alloc(t, err))) goto done;
  unsigned char *d = t->data;
  size_t plane = (size_t)h * w;
  for (size_t y = 0; y < h; y++) /* HWC -> CHW */
    for (size_t x = 0; x < w; x++)
      for (int c = 0; c < ch; c++) d[(size_t)c * plane + y * w + x] = pix[y * rowbytes + x * (size_t)ch + (size_t)c];
done:
  png_destroy_read_struct(&png, &info, NULL);
  fclose(f);
  free(pix);
  free(rows);
  if (rc) ovta_tensor_free(t);
  else *out = t;
  return rc;
}

int tool_input_read(const char *path, const char *name, ovta_tensor **out, ovta_error *err) {
  if (!tool_is_png(path)) return ovta_npy_read(path, name, out, err);
  *out = NULL;
  ovta_tensor *img;
  int rc = tool_png_read(path, name, &img, err);
  if (rc) return rc;
  int64_t shape[4] = {1, 1, 1, 1};
  for (int d = 0; d < img->rank; d++) shape[4 - img->rank + d] = img->shape[d];
  ovta_tensor *t = ovta_tensor_new(name, OVTA_DT_F32, 4, shape);
  rc = t ? ovta_tensor_alloc(t, err) : OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
  if (!rc) {
    const unsigned char *s = img->data;
    int64_t n = ovta_tensor_numel(img);
    for (int64_t i = 0; i < n; i++) ((float *)t->data)[i] = (float)s[i] / 255.0f;
    *out = t;
  } else {
    ovta_tensor_free(t);
  }
  ovta_tensor_free(img);
  return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int tool_png_dir_read(const char *dir, const char *name, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  DIR *dp = opendir(dir);
  if (!dp) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", dir, strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *de; !rc && (de = readdir(dp));) {
    size_t l = strlen(de->d_name);
    if (l <= 4 || strcasecmp(de->d_name + l - 4, ".png") != 0 || de->d_name[0] == '.') continue;
    if (n == cap) {
      char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
      if (!nn) rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", dir);
      else names = nn;
    }
    if (!rc && !(names[n++] = strdup(de->d_name))) rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", dir);
  }
  closedir(dp);
  if (!rc && n == 0) rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: no .png files in the folder", dir);
  if (!rc) qsort(names, n, sizeof *names, cmp_str);
  ovta_tensor *all = NULL;
  int64_t per = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    ovta_tensor *img;
    if ((rc = tool_png_read(path, name, &img, err))) break;
    if (!all) {
      int64_t shape[4] = {(int64_t)n};
      for (int d = 0; d < img->rank; d++) shape[1 + d] = img->shape[d];
      per = ovta_tensor_numel(img);
      all = ovta_tensor_new(name, OVTA_DT_U8, img->rank + 1, shape);
      rc = all ? ovta_tensor_alloc(all, err) : OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", dir);
    } else if (img->rank + 1 != all->rank || memcmp(img->shape, all->shape + 1, sizeof(int64_t) * (size_t)img->rank)) {
      char a[128], b[128];
      ovta_shape_str(img, a, sizeof a);
      snprintf(b, sizeof b, "%s", names[0]);
      rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: image is %s, unlike %s/%s (all images must have one size and channels)",
                     path, a, dir, b);
    }
    if (!rc) memcpy((unsigned char *)all->data + (size_t)i * (size_t)per, img->data, (size_t)per);
    ovta_tensor_free(img);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (rc) ovta_tensor_free(all);
  else *out = all;
  return rc;
}
