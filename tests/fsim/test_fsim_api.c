/* fsim's own API (hw/sim/fsim.h) without the driver: a plain host array as DRAM. And
 * ovta_fsim_sram, the driver's view of the same SRAMs (driver/backend_fsim.c). */
#include "fsim.h"
#include "ovta_driver.h"
#include "ovta_test.h"

/* ---------------------------------------------------------------- a DRAM of one buffer */

#define DRAM_BASE 0x100000ull  /* physical address of mem[0] */
#define DRAM_BYTES 65536u      /* one allocated buffer of this size */
#define OFF_UOP 0u             /* micro-ops */
#define OFF_ACC 4096u          /* ACC data */
#define OFF_STREAM 8192u       /* instructions */

static _Alignas(4096) uint8_t mem[DRAM_BYTES];

/* fsim_dram.host over mem: inside it or NULL. */
static void *mem_host(void *ctx, uint64_t phys, uint64_t len) {
  (void)ctx;
  if (phys < DRAM_BASE || phys - DRAM_BASE > DRAM_BYTES || len > DRAM_BYTES - (phys - DRAM_BASE)) return NULL;
  return mem + (phys - DRAM_BASE);
}

/* Encode n instructions into the stream area. */
static void put_stream(const ovta_isa *isa, const ovta_insn *in, int n) {
  ovta_error err;
  for (int i = 0; i < n; i++) {
    ovta_insn_bits b;
    OVTA_ASSERT_OK(ovta_insn_encode(isa, &in[i], &b, &err), err);
    ovta_insn_bits_store(&b, mem + OFF_STREAM + 16 * i);
  }
}

/* LOAD UOP (2 micro-ops), LOAD ACC of `acc_elems` elements from `acc_off` to ACC row 3, FINISH. */
static void put_program(const ovta_isa *isa, uint32_t acc_off, uint32_t acc_elems) {
  uint32_t accb = (uint32_t)ovta_elem_bytes(&isa->cfg, OVTA_MEM_ACC);
  ovta_insn p[3] = {
      {.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_UOP, .dram_base = (uint32_t)((DRAM_BASE + OFF_UOP) / 4),
       .y_size = 1, .x_size = 2, .x_stride = 2},
      {.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_ACC, .sram_base = 3,
       .dram_base = (uint32_t)((DRAM_BASE + acc_off) / accb), .y_size = 1, .x_size = acc_elems, .x_stride = acc_elems},
      {.opcode = OVTA_OP_FINISH},
  };
  put_stream(isa, p, 3);
}

/* Runs the program on a fresh simulator of each config (fixed order and a seed): SRAM contents
 * through fsim_sram, counters, and the errors of the DRAM interface. */
static void test_direct(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_error err;
    ovta_config cfg;
    ovta_isa isa;
    OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
    OVTA_ASSERT_OK(ovta_isa_init(&isa, &cfg, &err), err);
    memset(mem, 0, sizeof mem);
    ovta_uop u[2] = {{0, 0, 0}, {1, 0, 0}};
    for (int k = 0; k < 2; k++) OVTA_ASSERT_OK(ovta_uop_encode(&isa, &u[k], (uint32_t *)(mem + OFF_UOP) + k, &err), err);
    size_t accb = (size_t)ovta_elem_bytes(&cfg, OVTA_MEM_ACC);
    for (size_t i = 0; i < 2 * accb; i++) mem[OFF_ACC + i] = (uint8_t)(i * 7 + 1);
    put_program(&isa, OFF_ACC, 2);
    fsim *s;
    OVTA_ASSERT_OK(fsim_new(&isa, (fsim_dram){NULL, mem_host}, 0, &s, &err), err);
    for (uint64_t seed = 0; seed <= 3; seed += 3) {
      ovta_counters c;
      memset(&c, 0xff, sizeof c);
      OVTA_ASSERT_OK(fsim_exec(s, DRAM_BASE + OFF_STREAM, 3, 10000, seed, &c, &err), err);
      assert_int_equal(c.insns_compute, 3);
      assert_int_equal(c.insns_load + c.insns_store + c.gemm_uops + c.alu_uops + c.cycles, 0);
      assert_int_equal(c.bytes_read[OVTA_MEM_UOP], 8);
      assert_int_equal(c.bytes_read[OVTA_MEM_ACC], 2 * accb);
      const void *d;
      size_t n;
      OVTA_ASSERT_OK(fsim_sram(s, OVTA_MEM_UOP, &d, &n, &err), err);
      assert_int_equal(n, (size_t)cfg.uop_depth * 4);
      assert_memory_equal(d, mem + OFF_UOP, 8);
      OVTA_ASSERT_OK(fsim_sram(s, OVTA_MEM_ACC, &d, &n, &err), err);
      assert_int_equal(n, (size_t)cfg.acc_depth * accb);
      assert_memory_equal((const uint8_t *)d + 3 * accb, mem + OFF_ACC, 2 * accb);
    }
    /* a LOAD row past the end of the buffer; the stream past its end */
    put_program(&isa, DRAM_BYTES - (uint32_t)accb, 2);
    ovta_counters c;
    assert_int_equal(fsim_exec(s, DRAM_BASE + OFF_STREAM, 3, 0, 0, &c, &err), OVTA_EINSN);
    if (!strstr(err.msg, "instruction 1 (LOAD ACC): row 0 reads or writes DRAM") ||
        !strstr(err.msg, "not inside one allocated buffer"))
      fail_msg("%s", err.msg);
    assert_int_equal(fsim_exec(s, DRAM_BASE + DRAM_BYTES - 16, 2, 0, 0, &c, &err), OVTA_EINSN);
    assert_string_equal(err.msg, "fsim: instruction stream [0x10fff0, +32) is not inside one allocated buffer");
    const void *d;
    size_t n;
    assert_int_equal(fsim_sram(s, 99, &d, &n, &err), OVTA_EINVAL);
    assert_string_equal(err.msg, "fsim_sram: unknown memory type 99");
    fsim_free(s);
  }
  fsim_free(NULL);
}

/* ovta_fsim_sram: every memory type's whole SRAM on an fsim device; its two errors. */
static void test_driver_sram(void **state) {
  (void)state;
  ovta_error err;
  ovta_config cfg;
  ovta_dev *dev;
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  OVTA_ASSERT_OK(ovta_dev_open("fsim", &cfg, NULL, &dev, &err), err);
  const void *d;
  size_t n;
  for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
    OVTA_ASSERT_OK(ovta_fsim_sram(dev, mt, &d, &n, &err), err);
    size_t eb = mt == OVTA_MEM_UOP ? 4 : (size_t)ovta_elem_bytes(&cfg, mt);
    assert_int_equal(n, (size_t)ovta_sram_depth(&cfg, mt) * eb);
  }
  assert_int_equal(ovta_fsim_sram(dev, 99, &d, &n, &err), OVTA_EINVAL);
  assert_string_equal(err.msg, "ovta_fsim_sram: unknown memory type 99");
  assert_int_equal(ovta_fsim_sram(NULL, OVTA_MEM_ACC, &d, &n, &err), OVTA_EINVAL);
  assert_string_equal(err.msg, "ovta_fsim_sram: not an fsim device");
  ovta_dev_close(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_direct),
      cmocka_unit_test(test_driver_sram),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
