/* Driver tests: the backend table, simulated DRAM (allocation, alignment, zero fill, first fit,
 * the bounds query), DMA buffers, run argument checks and the counters' JSON. Expected values
 * are derived by hand from the sizes involved. */
#include <cjson/cJSON.h>

#include "driver_impl.h"
#include "ovta_test_dev.h"

static void test_backend_names(void **state) {
  (void)state;
  int fsim = 0;
  for (const char *const *n = ovta_backend_names(); *n; n++) fsim += strcmp(*n, "fsim") == 0;
  assert_int_equal(fsim, 1);
  ovta_config cfg;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  ovta_dev *dev = (ovta_dev *)&cfg; /* must be overwritten with NULL */
  assert_int_equal(ovta_dev_open("nosuch", &cfg, NULL, &dev, &err), OVTA_EUNSUPPORTED);
  assert_null(dev);
  assert_non_null(strstr(err.msg, "nosuch"));
  assert_non_null(strstr(err.msg, "fsim"));
  assert_int_equal(ovta_dev_open("fsim", NULL, NULL, &dev, &err), OVTA_EINVAL);
  /* 4 GiB of DRAM from 0x10000000 does not fit 32 address bits */
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.dram_bytes = 4ull << 30;
  assert_int_equal(ovta_dev_open("fsim", &cfg, &o, &dev, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "address bits"));
}

static void test_simdram(void **state) {
  (void)state;
  ovta_simdram *d;
  ovta_error err;
  const uint64_t base = 0x10000000;
  OVTA_ASSERT_OK(ovta_simdram_open(base, 1 << 20, 256, &d, &err), err);
  assert_int_equal(ovta_simdram_base(d), base);
  assert_int_equal(ovta_simdram_size(d), 1 << 20);
  uint64_t a, b, c;
  int tag_a, tag_b, tag_c;
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 100, &tag_a, &a, &err), err);
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 1000, &tag_b, &b, &err), err);
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 10, &tag_c, &c, &err), err);
  /* first fit from the base, each start aligned to 256: 0, 256 (100 rounded up), 1280 */
  assert_int_equal(a, base);
  assert_int_equal(b, base + 256);
  assert_int_equal(c, base + 256 + 1024);
  /* bounds query */
  assert_true(ovta_simdram_inside(d, a, 100));
  assert_true(ovta_simdram_inside(d, a + 99, 1));
  assert_false(ovta_simdram_inside(d, a + 99, 2));   /* one byte past the end */
  assert_false(ovta_simdram_inside(d, a + 100, 1));  /* the alignment gap */
  assert_false(ovta_simdram_inside(d, a, 300));      /* spans into b */
  assert_true(ovta_simdram_inside(d, b + 500, 500));
  assert_false(ovta_simdram_inside(d, base - 1, 1)); /* below the region */
  assert_false(ovta_simdram_inside(d, 0, 1));
  assert_ptr_equal(ovta_simdram_find(d, b + 999), &tag_b);
  assert_null(ovta_simdram_find(d, b + 1000));
  /* host pointers, zero fill after free */
  uint8_t *hb = ovta_simdram_host(d, b, 1000);
  assert_non_null(hb);
  for (int i = 0; i < 1000; i++) assert_int_equal(hb[i], 0);
  memset(hb, 0xab, 1000);
  ovta_simdram_free(d, b);
  assert_false(ovta_simdram_inside(d, b, 1));
  assert_int_equal(ovta_simdram_count(d), 2);
  /* the gap of 1024 at b is the first fit for 600 bytes */
  uint64_t b2;
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 600, NULL, &b2, &err), err);
  assert_int_equal(b2, b);
  for (int i = 0; i < 600; i++) assert_int_equal(hb[i], 0);
  /* a large allocation spanning pages, dirtied, freed, reallocated: zero again */
  uint64_t big;
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 300000, NULL, &big, &err), err);
  uint8_t *hbig = ovta_simdram_host(d, big, 300000);
  memset(hbig, 0x5a, 300000);
  ovta_simdram_free(d, big);
  uint64_t big2;
  OVTA_ASSERT_OK(ovta_simdram_alloc(d, 300000, NULL, &big2, &err), err);
  assert_int_equal(big2, big);
  for (int i = 0; i < 300000; i += 997) assert_int_equal(hbig[i], 0);
  assert_int_equal(hbig[299999], 0);
  /* too large */
  uint64_t x;
  assert_int_equal(ovta_simdram_alloc(d, 1 << 20, NULL, &x, &err), OVTA_ENOMEM);
  assert_int_equal(ovta_simdram_alloc(d, 0, NULL, &x, &err), OVTA_EINVAL);
  assert_null(ovta_simdram_host(d, base + (1 << 20) - 4, 8));
  ovta_simdram_close(d);
  assert_int_equal(ovta_simdram_open(base, 4096, 100, &d, &err), OVTA_EINVAL);
}

static void test_buffers(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config cfg;
    ovta_error err;
    ovta_dev *dev = ovta_test_dev_open("fsim", *cf, NULL, &cfg);
    assert_string_equal(ovta_dev_backend(dev), "fsim");
    assert_int_equal(ovta_dev_config(dev)->block_in, cfg.block_in);
    ovta_buf *b[3];
    size_t sizes[3] = {1, 5000, 64};
    for (int i = 0; i < 3; i++) {
      OVTA_ASSERT_OK(ovta_buf_alloc(dev, sizes[i], &b[i], &err), err);
      assert_int_equal(b[i]->size, sizes[i]);
      assert_int_equal(b[i]->phys % 64, 0);
      for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) assert_int_equal(b[i]->phys % ovta_elem_bytes(&cfg, mt), 0);
      assert_true(b[i]->phys >= OVTA_SIMDRAM_BASE && b[i]->phys + sizes[i] <= 0x100000000ull);
      for (size_t k = 0; k < sizes[i]; k++) assert_int_equal(((uint8_t *)b[i]->host)[k], 0);
    }
    uint8_t in[5000], out[5000];
    for (int i = 0; i < 5000; i++) in[i] = (uint8_t)(i * 7);
    OVTA_ASSERT_OK(ovta_buf_write(b[1], 0, in, 5000, &err), err);
    memset(out, 0, sizeof out);
    OVTA_ASSERT_OK(ovta_buf_read(b[1], 100, out, 4900, &err), err);
    assert_memory_equal(out, in + 100, 4900);
    assert_int_equal(ovta_buf_write(b[1], 4999, in, 2, &err), OVTA_EINVAL);
    assert_int_equal(ovta_buf_read(b[0], 0, out, 2, &err), OVTA_EINVAL);
    assert_int_equal(ovta_buf_write(b[0], SIZE_MAX, in, 2, &err), OVTA_EINVAL);
    assert_ptr_equal(ovta_buf_find(dev, b[1]->phys + 4999), b[1]);
    assert_null(ovta_buf_find(dev, b[1]->phys + 5000));
    uint64_t p1 = b[1]->phys;
    ovta_buf_free(b[1]);
    assert_null(ovta_buf_find(dev, p1));
    /* run argument checks */
    assert_int_equal(ovta_dev_run(dev, b[2]->phys, 0, 0, &err), OVTA_EINVAL);
    assert_int_equal(ovta_dev_run(dev, p1, 1, 0, &err), OVTA_EINSN); /* stream in freed memory */
    assert_non_null(strstr(err.msg, "not inside"));
    assert_int_equal(ovta_dev_run(dev, b[2]->phys, 5, 0, &err), OVTA_EINSN); /* 80 bytes in a 64-byte buffer */
    ovta_dev_close(dev); /* frees b[0], b[2] */
  }
}

static void test_counters_json(void **state) {
  (void)state;
  ovta_counters c;
  memset(&c, 0, sizeof c);
  c.insns_load = 1, c.insns_compute = 2, c.insns_store = 3;
  c.bytes_read[OVTA_MEM_UOP] = 4, c.bytes_read[OVTA_MEM_WGT] = 5, c.bytes_read[OVTA_MEM_INP] = 6;
  c.bytes_read[OVTA_MEM_ACC] = 7, c.bytes_written = 8, c.gemm_uops = 1ull << 40, c.alu_uops = 10;
  c.cycles = 11, c.busy_compute = 12, c.stall_store = 13;
  char *js = ovta_counters_to_json(&c);
  assert_non_null(js);
  cJSON *o = cJSON_Parse(js);
  assert_non_null(o);
  static const struct {
    const char *key;
    double v;
  } want[] = {{"insns_load", 1},  {"insns_compute", 2}, {"insns_store", 3}, {"bytes_written", 8},
              {"gemm_uops", 1099511627776.0}, {"alu_uops", 10}, {"cycles", 11}, {"busy_compute", 12},
              {"stall_store", 13}, {"busy_load", 0}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, want[i].key);
    assert_non_null(v);
    assert_true(cJSON_GetNumberValue(v) == want[i].v);
  }
  cJSON *br = cJSON_GetObjectItemCaseSensitive(o, "bytes_read");
  assert_non_null(br);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(br, "UOP")) == 4);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(br, "WGT")) == 5);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(br, "INP")) == 6);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(br, "ACC")) == 7);
  assert_null(cJSON_GetObjectItemCaseSensitive(br, "OUT"));
  cJSON_Delete(o);
  free(js);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_backend_names),
      cmocka_unit_test(test_simdram),
      cmocka_unit_test(test_buffers),
      cmocka_unit_test(test_counters_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
