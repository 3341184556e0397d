// tsim.cpp: the Verilator harness of hw/rtl (ovta_top) behind the C API of hw/sim/tsim.h.
//
// Sections:
//   1. Model and DRAM state  - the Verilated top, an AXI4 DRAM model (latency, bandwidth,
//                              bounds checks through the driver's callbacks, injected faults:
//                              error responses and stalls, tsim_opts.faults), an AXI4-Lite master.
//   2. Clocking              - one cycle: handshakes, DRAM model, next inputs, edge.
//   3. Register access       - AXI4-Lite reads and writes.
//   4. Runs                  - soft reset, start, poll, watchdog, results and messages.
//   (Chrome trace: per-cycle sampling of the units' busy flags and instruction indices, which
//    ovta_top marks verilator public_flat_rd, into trace events; section 2.)
//   5. C API                 - the extern "C" functions of tsim.h.
//
// Built per config by hw/sim/tsim.mk with -include tsim_cfg.h (TSIM_* values of the config).
#include "tsim.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <vector>

#include "Vovta_top.h"
#include "Vovta_top___024root.h"
#include "verilated.h"
#ifdef TSIM_TRACE
#include "verilated_fst_c.h"
#endif

#ifndef TSIM_AXI_DATA_BITS
#error "build with -include tsim_cfg.h (hw/sim/tsim.mk)"
#endif

// Verilator calls this on $fatal/$stop; the harness must never exit the process.
static bool g_fatal = false;

namespace {

constexpr int BUS_BYTES = TSIM_AXI_DATA_BITS / 8;

// Register map (hw/rtl/README.md)
constexpr uint32_t R_CTRL = 0x00, R_STATUS = 0x04, R_ERR_INDEX = 0x08, R_INSN_ADDR = 0x0C,
                   R_INSN_COUNT = 0x14, R_FINISHES = 0x1C, R_CNT = 0x20, R_RETIRED = 0xC0,
                   R_DBG_LOAD = 0xC4, R_TOKENS = 0xDC, R_CMDQ = 0xE0, R_FETCH = 0xE4,
                   R_ERR_VALUE = 0xE8;

const char *const OPNAME[8] = {"LOAD", "STORE", "GEMM", "FINISH", "ALU", "op5", "op6", "op7"};

// ---------------------------------------------------------------- 1. Model and DRAM state

// Wide-port helpers: Verilator uses uint32_t/uint64_t up to 64 bits and VlWide above.
template <typename T> void put_bytes(T &d, const uint8_t *p) {
  uint64_t v = 0;
  for (int i = BUS_BYTES - 1; i >= 0; i--) v = v << 8 | p[i];
  d = (T)v;
}
template <std::size_t N> void put_bytes(VlWide<N> &d, const uint8_t *p) {
  for (std::size_t w = 0; w < N; w++) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[4 * w + i];
    d[w] = v;
  }
}
// WSTRB: one bit per byte lane, at most 64 (a 512-bit bus)
template <typename T> uint64_t get_strb(const T &d) { return (uint64_t)d; }
template <typename T> void get_bytes(const T &d, uint8_t *p) {
  uint64_t v = d;
  for (int i = 0; i < BUS_BYTES; i++) p[i] = (uint8_t)(v >> (8 * i));
}
template <std::size_t N> void get_bytes(const VlWide<N> &d, uint8_t *p) {
  for (std::size_t w = 0; w < N; w++)
    for (int i = 0; i < 4; i++) p[4 * w + i] = (uint8_t)(d[w] >> (8 * i));
}

struct ReadBurst {
  uint64_t addr;     // byte address of the first beat
  unsigned beats;    // beats in the burst
  unsigned done;     // beats delivered
  unsigned id;       // ARID
  uint64_t ready_at; // cycle the first beat may go out
  unsigned resp;     // RRESP of its beats (0 OKAY; an injected fault: 2 SLVERR, 3 DECERR)
};
struct WriteResp {
  uint64_t due;      // cycle the B response may go out
  unsigned resp;     // BRESP
};
struct WriteBurst {
  uint64_t addr;     // byte address of the first beat
  unsigned beats;    // beats announced
  unsigned done;     // beats received
  std::vector<uint8_t> data, strb;  // the beats received, and their byte strobes
};
struct Seen {       // inputs of ovta_top in the current cycle (the registered copies)
  bool arready = false, rvalid = false, awready = false, wready = false, bvalid = false;
};
struct UnitSpan {
  bool on;           // the unit is executing an instruction
  uint32_t idx;      // its index in the stream
  uint64_t start;    // cycle it started
};

}  // namespace

struct tsim {
  std::unique_ptr<VerilatedContext> ctx;  // Verilator context
  std::unique_ptr<Vovta_top> top;         // the model
#ifdef TSIM_TRACE
  std::unique_ptr<VerilatedFstC> fst;     // waveform, when requested
#endif
  tsim_dram dram;                         // the driver's DRAM
  tsim_opts opts;                         // options with defaults applied
  uint64_t cycle = 0;                     // cycles simulated since create
  std::deque<ReadBurst> rq;               // read bursts accepted, in order
  std::deque<WriteBurst> wq;              // write bursts accepted, waiting for W beats
  std::deque<WriteResp> bq;               // write responses, in order
  // fault injection (tsim_opts.faults)
  bool fired[TSIM_MAX_FAULTS] = {};       // the fault has fired (once per model)
  uint64_t n_rd = 0, n_wr = 0;            // read / write bursts of the current run
  uint64_t inj_addr = 0;                  // the burst of the last injected error response
  unsigned credit = 0;                    // bandwidth credit, 1/16 beats
  Seen seen;                              // AXI inputs the design sees this cycle
  bool beat_valid = false;                // m_rdata_i holds the front read beat
  uint64_t progress = 0;                  // last cycle with an AXI handshake
  // first DRAM fault of the run
  bool fault = false;                     // a bounds violation happened
  bool fault_write = false;               // ... on the write channel
  unsigned fault_id = 0;                  // ARID of a read fault
  uint64_t fault_addr = 0, fault_len = 0; // the burst
  // Chrome trace
  FILE *chrome = nullptr;                 // open while tracing
  bool chrome_first = true;               // no event written yet
  uint64_t run_insn_addr = 0;             // instruction stream of the current run
  uint64_t run_c0 = 0;                    // cycle the current run started
  UnitSpan span[3] = {};                  // load, compute, store
};

namespace {

// ---------------------------------------------------------------- 2. Clocking

// The fault of `kind` that fires on this burst (n-th of its channel, [addr, addr+len)), or -1.
int fault_hit(tsim *t, tsim_fault_kind kind, uint64_t n, uint64_t addr, uint64_t len) {
  for (int i = 0; i < TSIM_MAX_FAULTS; i++) {
    const tsim_fault &f = t->opts.faults[i];
    if (f.kind != kind || t->fired[i]) continue;
    bool hit = f.nth ? f.nth == n : addr < f.addr + f.len && f.addr < addr + len;
    if (hit) {
      t->fired[i] = true;
      return i;
    }
  }
  return -1;
}

// Drop every burst the DRAM model holds (soft reset, start of a run).
void drop_bursts(tsim *t) {
  t->rq.clear();
  t->wq.clear();
  t->bq.clear();
  t->beat_valid = false;
}

void dump(tsim *t) {
#ifdef TSIM_TRACE
  if (t->fst) t->fst->dump(t->ctx->time());
#else
  (void)t;
#endif
}

// One Chrome trace event: unit u ran instruction idx over cycles [c0, c1).
void chrome_event(tsim *t, int u, uint32_t idx, uint64_t c0, uint64_t c1) {
  static const char *const unit[] = {"load", "compute", "store"};
  static const char *const mem[8] = {"UOP", "WGT", "INP", "ACC", "OUT", "mem5", "mem6", "mem7"};
  const uint8_t *ip = (const uint8_t *)t->dram.host(t->dram.ctx, t->run_insn_addr + 16ull * idx, 16);
  unsigned op = ip ? ip[0] & 7 : 7, mt = ip ? ((ip[0] >> 7) | (ip[1] << 1)) & 7 : 7;
  char name[32];
  if (op == 0 || op == 1) snprintf(name, sizeof name, "%s %s", OPNAME[op], mem[mt]);
  else snprintf(name, sizeof name, "%s", OPNAME[op]);
  // timestamps in microseconds at the config's clock; the cycles are in args
  double us = 1.0 / TSIM_CLOCK_MHZ;
  fprintf(t->chrome, "%s{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
          "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"insn\": %u, \"opcode\": \"%s\", \"start_cycle\": %llu, "
          "\"end_cycle\": %llu}}",
          t->chrome_first ? "[\n" : ",\n", name, unit[u], u + 1, (double)c0 * us, (double)(c1 - c0) * us, idx,
          OPNAME[op], (unsigned long long)(c0 - t->run_c0), (unsigned long long)(c1 - t->run_c0));
  t->chrome_first = false;
}

// Sample the units after a clock edge: close and open instruction spans. The netlist build
// (TSIM_NETLIST, hw/rtl/netlist.mk) has no internal signals: tsim_create refuses a Chrome trace.
void chrome_sample(tsim *t) {
#ifdef TSIM_NETLIST
  (void)t;
#else
  Vovta_top___024root *r = t->top->rootp;
  for (int u = 0; u < 3; u++) {
    bool busy = r->ovta_tsim_top__DOT__u_top__DOT__busy >> u & 1;
    uint32_t idx = r->ovta_tsim_top__DOT__u_top__DOT__m_idx[u];
    UnitSpan &s = t->span[u];
    if (s.on && (!busy || idx != s.idx)) {
      chrome_event(t, u, s.idx, s.start, t->cycle);
      s.on = false;
    }
    if (busy && !s.on) s = {true, idx, t->cycle};
  }
#endif
}

// One clock cycle, with the DRAM model answering the AXI4 master. The model is ovta_tsim_top
// (hw/sim/tsim/ovta_tsim_top.sv): ovta_top behind one register on every input, so after a clock
// edge its outputs are final for the new cycle and depend on no input. tick() first takes the
// handshakes of the current cycle (outputs against the inputs the design sees, t->seen), updates
// the DRAM model, then drives the inputs of the next cycle, which the edge registers. The DRAM
// model decides the next cycle's inputs from its state after this cycle, as a slave that drove
// them combinationally at the start of the next cycle would: the cycle timing is that of a
// direct connection. Evaluations per cycle: one with the clock low (it finds nothing to do, no
// logic depends on an input) and one for the rising edge.
void tick(tsim *t) {
  Vovta_top *m = t->top.get();
  const Seen &sn = t->seen;
  // 1. handshakes of this cycle
  bool ar = m->m_arvalid_o && sn.arready;
  bool r = sn.rvalid && m->m_rready_o;
  bool aw = m->m_awvalid_o && sn.awready;
  bool w = m->m_wvalid_o && sn.wready;
  bool b = sn.bvalid && m->m_bready_o;
  // 2. the DRAM model
  if (ar) {
    // Rows of elements narrower than a beat (micro-ops; INP/ACC on a wide bus) are read in
    // whole beats and may start and end inside a beat: check from the first byte to the first
    // byte of the last beat (buffers are at least 64-byte aligned, so the first beat starts
    // inside the row's buffer).
    uint64_t araddr = m->m_araddr_o;
    unsigned arlen = m->m_arlen_o;
    uint64_t len = (uint64_t)(arlen + 1) * BUS_BYTES;
    if (!t->fault && !t->dram.inside(t->dram.ctx, araddr, len - BUS_BYTES + 1)) {
      t->fault = true;
      t->fault_write = false;
      t->fault_id = m->m_arid_o;
      t->fault_addr = araddr;
      t->fault_len = len;
    }
    ReadBurst rb = {araddr, arlen + 1, 0, (unsigned)m->m_arid_o, t->cycle + t->opts.read_latency, 0};
    t->n_rd++;
    int f = fault_hit(t, TSIM_FAULT_RRESP, t->n_rd, araddr, len);
    if (f >= 0) {
      rb.resp = t->opts.faults[f].resp;
      t->inj_addr = araddr;
    }
    f = fault_hit(t, TSIM_FAULT_RSTALL, t->n_rd, araddr, len);
    if (f >= 0) rb.ready_at += t->opts.faults[f].stall_cycles;
    t->rq.push_back(rb);
  }
  if (r && !t->rq.empty()) {
    t->credit -= 16;
    if (++t->rq.front().done == t->rq.front().beats) t->rq.pop_front();
  }
  t->credit += t->opts.beats_per_cycle_x16;
  if (t->credit > 32) t->credit = 32;
  if (aw) t->wq.push_back({(uint64_t)m->m_awaddr_o, (unsigned)m->m_awlen_o + 1, 0, {}, {}});
  if (w && !t->wq.empty()) {
    // A burst is kept until its last beat, then its strobed bytes (a row's bytes: the first and
    // last beats of a row of elements narrower than a beat are partial) are checked to lie
    // inside one allocated buffer and written.
    WriteBurst &wb = t->wq.front();
    size_t at = wb.data.size();
    wb.data.resize(at + BUS_BYTES);
    wb.strb.resize(at + BUS_BYTES);
    get_bytes(m->m_wdata_o, &wb.data[at]);
    uint64_t st = get_strb(m->m_wstrb_o);
    for (int i = 0; i < BUS_BYTES; i++) wb.strb[at + i] = (uint8_t)(st >> i & 1);
    if (++wb.done == wb.beats) {
      size_t lo = 0, hi = wb.strb.size();
      while (lo < hi && !wb.strb[lo]) lo++;
      while (hi > lo && !wb.strb[hi - 1]) hi--;
      if (lo < hi && !t->fault) {
        if (!t->dram.inside(t->dram.ctx, wb.addr + lo, hi - lo)) {
          t->fault = true;
          t->fault_write = true;
          t->fault_addr = wb.addr + lo;
          t->fault_len = hi - lo;
        } else if (uint8_t *h = (uint8_t *)t->dram.host(t->dram.ctx, wb.addr + lo, hi - lo)) {
          for (size_t i = lo; i < hi; i++)
            if (wb.strb[i]) h[i - lo] = wb.data[i];
        }
      }
      WriteResp br = {t->cycle + t->opts.write_latency, 0};
      t->n_wr++;
      int f = fault_hit(t, TSIM_FAULT_BRESP, t->n_wr, wb.addr, (uint64_t)wb.beats * BUS_BYTES);
      if (f >= 0) {
        br.resp = t->opts.faults[f].resp;
        t->inj_addr = wb.addr;
      }
      t->bq.push_back(br);
      t->wq.pop_front();
    }
  }
  if (b && !t->bq.empty()) t->bq.pop_front();
  if (ar || r || aw || w || b) t->progress = t->cycle;
  t->cycle++;
  // 3. inputs of the next cycle (t->cycle now)
  Seen nx;
  nx.rvalid = !t->rq.empty() && t->rq.front().ready_at <= t->cycle && t->credit >= 16;
  if (nx.rvalid) {
    ReadBurst &rb = t->rq.front();
    // the beat's bytes: read once per beat (a beat not taken stays on the bus)
    if (r || ar || !t->beat_valid) {  // else the beat not taken stays
      uint64_t a = rb.addr + (uint64_t)rb.done * BUS_BYTES;
      const void *h = t->fault ? nullptr : t->dram.host(t->dram.ctx, a, BUS_BYTES);
      if (h) put_bytes(m->m_rdata_i, (const uint8_t *)h);
      else {
        uint8_t z[BUS_BYTES] = {0};
        put_bytes(m->m_rdata_i, z);
      }
      m->m_rid_i = rb.id;
      m->m_rlast_i = rb.done + 1 == rb.beats;
      m->m_rresp_i = rb.resp;
    }
  }
  t->beat_valid = nx.rvalid;
  nx.arready = t->rq.size() < 16;
  nx.awready = t->wq.size() < 4;
  nx.wready = !t->wq.empty();
  nx.bvalid = !t->bq.empty() && t->bq.front().due <= t->cycle;
  m->m_bresp_i = nx.bvalid ? t->bq.front().resp : 0;
  m->m_rvalid_i = nx.rvalid;
  m->m_arready_i = nx.arready;
  m->m_awready_i = nx.awready;
  m->m_wready_i = nx.wready;
  m->m_bvalid_i = nx.bvalid;
  t->seen = nx;
  // 4. the clock edge that ends this cycle
  m->clk_i = 0;
  m->eval();
  t->ctx->timeInc(1);
  dump(t);
  m->clk_i = 1;
  m->eval();
  t->ctx->timeInc(1);
  dump(t);
  if (t->chrome) chrome_sample(t);
}

// ---------------------------------------------------------------- 3. Register access

// AXI4-Lite: after tick() the design sees the inputs set before it, and its outputs belong to
// that cycle; a handshake seen there completes at the next tick's edge.
uint32_t reg_read(tsim *t, uint32_t addr) {
  Vovta_top *m = t->top.get();
  m->s_araddr_i = addr;
  m->s_arvalid_i = 1;
  m->s_rready_i = 0;
  for (int i = 0; i < 16; i++) {
    tick(t);
    if (m->s_arready_o) break;
  }
  m->s_arvalid_i = 0;
  m->s_rready_i = 1;
  uint32_t v = 0;
  for (int i = 0; i < 16; i++) {
    tick(t);
    if (m->s_rvalid_o) {
      v = m->s_rdata_o;
      break;
    }
  }
  m->s_rready_i = 0;
  tick(t);
  return v;
}

void reg_write(tsim *t, uint32_t addr, uint32_t value) {
  Vovta_top *m = t->top.get();
  m->s_awaddr_i = addr;
  m->s_wdata_i = value;
  m->s_awvalid_i = 1;
  m->s_wvalid_i = 1;
  m->s_bready_i = 0;
  for (int i = 0; i < 16; i++) {
    tick(t);
    if (m->s_awready_o) break;
  }
  m->s_awvalid_i = 0;
  m->s_wvalid_i = 0;
  m->s_bready_i = 1;
  for (int i = 0; i < 16; i++) {
    tick(t);
    if (m->s_bvalid_o) break;
  }
  m->s_bready_i = 0;
  tick(t);
  if (addr == R_CTRL && (value & 2)) drop_bursts(t);
}

uint64_t reg_read64(tsim *t, uint32_t addr) {
  uint64_t lo = reg_read(t, addr);
  return lo | (uint64_t)reg_read(t, addr + 4) << 32;
}

// ---------------------------------------------------------------- 4. Runs

void msgf(tsim_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msgf(tsim_result *res, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->msg, sizeof res->msg, fmt, ap);
  va_end(ap);
}

const char *rule_name(unsigned r) {
  static const char *const n[] = {"none", "unknown opcode", "reserved bit set",
                                  "dependency bit naming no queue", "memory type not allowed",
                                  "padding not allowed", "SRAM range beyond the buffer",
                                  "uop range outside uop SRAM", "unknown alu_opcode",
                                  "dst index out of range", "src index out of range",
                                  "wgt index out of range", "DRAM address beyond the bus"};
  return r < sizeof n / sizeof n[0] ? n[r] : "?";
}

// Describe every unit and queue: "fetch: ...; load: insn 3 waits for C2L token; ...".
void describe(tsim *t, char *out, size_t cap) {
  static const char *const mod[] = {"load", "compute", "store"};
  static const char *const wq[] = {"prev token", "next token", "prev room", "next room"};
  static const char *const qn[3][4] = {{"-", "C2L token", "-", "room in L2C"},
                                       {"L2C token", "S2C token", "room in C2L", "room in C2S"},
                                       {"C2S token", "-", "room in S2C", "-"}};
  (void)wq;
  size_t n = 0;
  uint32_t f = reg_read(t, R_FETCH), retired = reg_read(t, R_RETIRED);
  uint32_t tok = reg_read(t, R_TOKENS), cq = reg_read(t, R_CMDQ);
  n += snprintf(out + n, cap - n, "fetch: %s%s, %u retired; tokens L2C=%u C2L=%u C2S=%u S2C=%u; "
                "queued load=%u compute=%u store=%u",
                (f & 1) ? "dispatched all" : "dispatching", (f & 4) ? " (stopped on error)" : "",
                retired, tok & 255, tok >> 8 & 255, tok >> 16 & 255, tok >> 24,
                cq & 1023, cq >> 10 & 1023, cq >> 20 & 1023);
  for (int u = 0; u < 3 && n < cap; u++) {
    uint32_t d = reg_read(t, R_DBG_LOAD + 8 * u), idx = reg_read(t, R_DBG_LOAD + 8 * u + 4);
    bool busy = d >> 8 & 1, head = d >> 9 & 1, halted = d >> 10 & 1;
    unsigned w = d >> 4 & 15;
    n += snprintf(out + n, cap - n, "; ");
    if (halted) n += snprintf(out + n, cap - n, "%s halted at instruction %u", mod[u], idx);
    else if (busy) n += snprintf(out + n, cap - n, "%s executing instruction %u (state %u)", mod[u], idx, d & 15);
    else if (!head) n += snprintf(out + n, cap - n, "%s idle, queue empty", mod[u]);
    else {
      n += snprintf(out + n, cap - n, "%s waits at instruction %u (%s) for", mod[u], idx,
                    OPNAME[d >> 11 & 7]);
      for (int b = 3; b >= 0; b--)
        if (w >> b & 1) n += snprintf(out + n, cap - n, " %s", qn[u][3 - b]);
    }
    if (n >= cap) n = cap - 1;
  }
  if (n < cap) {
    n += snprintf(out + n, cap - n, "; AXI: %zu read bursts outstanding", t->rq.size());
    if (!t->rq.empty() && n < cap) {
      const ReadBurst &rb = t->rq.front();
      static const char *const rq_unit[] = {"fetch", "load", "compute", "?"};
      n += snprintf(out + n, cap - n, " (oldest: %s at 0x%llx, %u of %u beats, %s)", rq_unit[rb.id & 3],
                    (unsigned long long)rb.addr, rb.done, rb.beats,
                    rb.ready_at > t->cycle ? "held back by the DRAM" : "delivering");
    }
    if (n < cap) snprintf(out + n, cap - n, ", %zu write bursts awaiting data, %zu write responses pending",
                          t->wq.size(), t->bq.size());
  }
}

void read_counters(tsim *t, tsim_result *res) {
  for (int c = 0; c < TSIM_NCNT; c++) res->counters[c] = reg_read64(t, R_CNT + 8 * c);
  res->finishes = reg_read(t, R_FINISHES);
}

}  // namespace

// ---------------------------------------------------------------- 5. C API

extern "C" {

void tsim_get_info(tsim_info *out) {
  memset(out, 0, sizeof *out);
  out->api_version = TSIM_API_VERSION;
  out->config = TSIM_CONFIG_NAME;
  out->log_batch = TSIM_LOG_BATCH;
  out->log_block = TSIM_LOG_BLOCK;
  out->axi_data_bits = TSIM_AXI_DATA_BITS;
  out->uop_depth = TSIM_UOP_DEPTH;
  out->inp_depth = TSIM_INP_DEPTH;
  out->wgt_depth = TSIM_WGT_DEPTH;
  out->acc_depth = TSIM_ACC_DEPTH;
#ifdef TSIM_TRACE
  out->trace = 1;
#endif
}

tsim *tsim_create(const tsim_dram *dram, const tsim_opts *opts, char *err, size_t err_len) {
  if (!dram || !dram->inside || !dram->host) {
    if (err) snprintf(err, err_len, "tsim_create: no DRAM callbacks");
    return nullptr;
  }
  tsim *t = new (std::nothrow) tsim();
  if (!t) {
    if (err) snprintf(err, err_len, "tsim_create: out of memory");
    return nullptr;
  }
  t->dram = *dram;
  if (opts) t->opts = *opts;
  if (!t->opts.read_latency) t->opts.read_latency = 32;
  if (!t->opts.write_latency) t->opts.write_latency = 16;
  if (!t->opts.beats_per_cycle_x16) t->opts.beats_per_cycle_x16 = 16;
  if (!t->opts.watchdog_cycles) t->opts.watchdog_cycles = 1000000;
  for (tsim_fault &f : t->opts.faults) {
    if (f.kind == TSIM_FAULT_NONE) continue;
    if (!f.resp) f.resp = TSIM_BUS_RESP_SLVERR;
    bool bad_kind = f.kind != TSIM_FAULT_RRESP && f.kind != TSIM_FAULT_BRESP && f.kind != TSIM_FAULT_RSTALL;
    if (bad_kind || (f.resp != TSIM_BUS_RESP_SLVERR && f.resp != TSIM_BUS_RESP_DECERR) || (!f.nth && !f.len)) {
      if (err) snprintf(err, err_len, "tsim_create: a fault needs a kind, a burst number or an address range, "
                        "and response 2 (SLVERR) or 3 (DECERR)");
      delete t;
      return nullptr;
    }
  }
#ifdef TSIM_NETLIST
  if (t->opts.chrome_trace_path) {
    if (err) snprintf(err, err_len, "tsim_create: the netlist model of config %s has no Chrome trace "
                      "(its internal signals are gone; use the RTL model)", TSIM_CONFIG_NAME);
    delete t;
    return nullptr;
  }
#endif
  if (t->opts.chrome_trace_path) {
    t->chrome = fopen(t->opts.chrome_trace_path, "w");
    if (!t->chrome) {
      if (err) snprintf(err, err_len, "tsim_create: cannot write the Chrome trace %s: %s",
                        t->opts.chrome_trace_path, strerror(errno));
      delete t;
      return nullptr;
    }
    t->opts.chrome_trace_path = nullptr;  // the caller's string need not outlive this call
  }
  t->ctx.reset(new VerilatedContext);
  t->ctx->fatalOnError(false);
  t->top.reset(new Vovta_top(t->ctx.get(), "ovta"));
  if (t->opts.fst_path) {
#ifdef TSIM_TRACE
    t->ctx->traceEverOn(true);
    t->fst.reset(new VerilatedFstC);
    t->top->trace(t->fst.get(), 99);
    t->fst->open(t->opts.fst_path);
#else
    if (err) snprintf(err, err_len, "tsim_create: this model was built without FST tracing "
                      "(use the -trace build, hw/sim/tsim.mk)");
    delete t;
    return nullptr;
#endif
  }
  Vovta_top *m = t->top.get();
  m->rst_ni = 0;
  for (int i = 0; i < 4; i++) tick(t);
  m->rst_ni = 1;
  for (int i = 0; i < 2; i++) tick(t);
  return t;
}

void tsim_destroy(tsim *t) {
  if (!t) return;
  t->top->final();
  if (t->chrome) {
    for (int u = 0; u < 3; u++)   // a unit still busy (a run that failed or timed out)
      if (t->span[u].on) chrome_event(t, u, t->span[u].idx, t->span[u].start, t->cycle);
    static const char *const unit[] = {"load", "compute", "store"};
    for (int u = 0; u < 3; u++)
      fprintf(t->chrome, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
              "\"args\": {\"name\": \"%s\"}}", t->chrome_first && u == 0 ? "[\n" : ",\n", u + 1, unit[u]);
    fprintf(t->chrome, "\n]\n");
    fclose(t->chrome);
  }
#ifdef TSIM_TRACE
  if (t->fst) t->fst->close();
#endif
  delete t;
}

uint32_t tsim_reg_read(tsim *t, uint32_t addr) { return reg_read(t, addr); }
void tsim_reg_write(tsim *t, uint32_t addr, uint32_t value) { reg_write(t, addr, value); }

tsim_status tsim_run(tsim *t, uint64_t insn_addr, uint32_t count, uint64_t max_cycles,
                     uint32_t timeout_ms, tsim_result *res) {
  auto now_ms = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
  };
  uint64_t t0 = now_ms();
  memset(res, 0, sizeof *res);
  res->insn_index = -1;
  if (insn_addr % 16 || insn_addr + 16ull * count > (1ull << 32)) {
    res->status = TSIM_EARG;
    msgf(res, "instruction stream at 0x%llx (%u instructions) is not 16-byte aligned or beyond "
         "the 32-bit bus", (unsigned long long)insn_addr, count);
    return res->status;
  }
  // soft reset: clears queues, FSMs and counters; SRAM contents persist
  reg_write(t, R_CTRL, 2);  // also drops bursts of an earlier, failed run (reg_write)
  t->fault = false;
  t->n_rd = t->n_wr = 0;
  for (int i = 0; i < 4; i++) tick(t);
  uint64_t c0 = t->cycle;
  reg_write(t, R_INSN_ADDR, (uint32_t)insn_addr);
  reg_write(t, R_INSN_COUNT, count);
  t->run_insn_addr = insn_addr;
  for (UnitSpan &s : t->span) s.on = false;
  reg_write(t, R_CTRL, 1);
  t->run_c0 = t->cycle;
  t->progress = t->cycle;
  uint32_t last_retired = 0;
  uint64_t last_uops = 0;
  // poll the CTRL register after 64 cycles, then ever less often (up to 4096): register reads
  // cost cycles of their own, short runs end soon after they finish
  unsigned step = 64;
  for (;;) {
    for (unsigned i = 0; i < step && !t->fault; i++) tick(t);
    if (step < 4096) step *= 2;
    if (g_fatal) {
      res->status = TSIM_EARG;
      msgf(res, "the model stopped on an assertion (see stderr)");
      return res->status;
    }
    if (t->fault) {
      // stop at the first DRAM fault: name the instruction of the unit that issued it
      static const char *const unit[] = {"fetch", "load", "compute"};
      unsigned u = t->fault_write ? 3 : t->fault_id;
      res->status = TSIM_EDRAM;
      res->unit = u;
      if (u == 0) {
        msgf(res, "instruction stream: DRAM bytes [0x%llx, 0x%llx) are not inside one allocated "
             "buffer", (unsigned long long)t->fault_addr,
             (unsigned long long)(t->fault_addr + t->fault_len));
      } else {
        uint32_t idx = reg_read(t, R_DBG_LOAD + 8 * (u - 1) + 4);
        res->insn_index = idx;
        msgf(res, "instruction %u (%s): DRAM bytes [0x%llx, 0x%llx) are not inside one "
             "allocated buffer", idx, u == 3 ? "store" : unit[u],
             (unsigned long long)t->fault_addr,
             (unsigned long long)(t->fault_addr + t->fault_len));
      }
      read_counters(t, res);
      res->sim_cycles = t->cycle - c0;
      return res->status;
    }
    uint32_t ctrl = reg_read(t, R_CTRL);
    if (ctrl & 2) break;
    uint32_t retired = reg_read(t, R_RETIRED);
    uint64_t uops = reg_read(t, R_CNT + 8 * TSIM_CNT_GEMM_UOPS) +
                    (uint64_t)reg_read(t, R_CNT + 8 * TSIM_CNT_ALU_UOPS);
    if (retired != last_retired || uops != last_uops) t->progress = t->cycle;
    last_retired = retired;
    last_uops = uops;
    bool hung = t->cycle - t->progress > t->opts.watchdog_cycles;
    bool late = timeout_ms && now_ms() - t0 > timeout_ms;
    if (hung || late || (max_cycles && t->cycle - c0 > max_cycles)) {
      char d[600];
      describe(t, d, sizeof d);
      res->status = TSIM_ETIMEOUT;
      msgf(res, "%s after %llu cycles: %s", hung ? "watchdog: no progress" : late ? "timeout (wall-time limit)" : "cycle limit reached",
           (unsigned long long)(t->cycle - c0), d);
      read_counters(t, res);
      res->sim_cycles = t->cycle - c0;
      return res->status;
    }
  }
  uint32_t st = reg_read(t, R_STATUS);
  // field positions and codes: isa/encoding.json "status" (TSIM_* from the generated package)
  auto field = [st](unsigned lo, unsigned w) { return st >> lo & ((1u << w) - 1); };
  unsigned code = field(TSIM_STATUS_OUTCOME_LO, TSIM_STATUS_OUTCOME_W);
  unsigned rule = field(TSIM_STATUS_RULE_LO, TSIM_STATUS_RULE_W);
  unsigned unit = field(TSIM_STATUS_UNIT_LO, TSIM_STATUS_UNIT_W);
  unsigned resp = field(TSIM_STATUS_RESP_LO, TSIM_STATUS_RESP_W);
  uint32_t idx = reg_read(t, R_ERR_INDEX);
  read_counters(t, res);
  res->rule = rule;
  res->unit = unit;
  static const char *const uname[] = {"fetch", "load", "compute", "store"};
  switch (code) {
  case 0:
    res->status = TSIM_OK;
    msgf(res, "done");
    break;
  case 1: {
    res->status = TSIM_EINSN;
    res->insn_index = idx;
    // the opcode of the failing instruction, read back from the stream
    const uint8_t *ip = (const uint8_t *)t->dram.host(t->dram.ctx, insn_addr + 16ull * idx, 16);
    const char *op = ip ? OPNAME[ip[0] & 7] : "?";
    if (rule >= 9 && rule <= 11) {
      static const char *const what[] = {"dst", "src", "wgt"};
      msgf(res, "instruction %u (%s): %s index %u is out of range (detected by compute)", idx, op,
           what[rule - 9], reg_read(t, R_ERR_VALUE));
    } else {
      msgf(res, "instruction %u (%s): invalid (%s; detected by %s)", idx, op, rule_name(rule),
           uname[unit]);
    }
    break;
  }
  case 2: {
    char d[600];
    describe(t, d, sizeof d);
    res->status = TSIM_EDEADLOCK;
    msgf(res, "deadlock: %s", d);
    break;
  }
  case 3:
    res->status = TSIM_ENOFINISH;
    msgf(res, "all %u instructions retired without a FINISH (no FINISH)", count);
    break;
  case TSIM_OUTCOME_BUS: {
    res->status = TSIM_EBUS;
    res->insn_index = idx;
    res->resp = resp;
    const uint8_t *ip = idx < count ? (const uint8_t *)t->dram.host(t->dram.ctx, insn_addr + 16ull * idx, 16) : nullptr;
    msgf(res, "instruction %u (%s, %s): AXI %s error response %s (burst at 0x%llx); the units stopped",
         idx, ip ? OPNAME[ip[0] & 7] : "?", uname[unit], unit == 3 ? "write" : "read",
         resp == TSIM_BUS_RESP_DECERR ? "DECERR" : "SLVERR", (unsigned long long)t->inj_addr);
    break;
  }
  default:
    res->status = TSIM_EDRAM;
    res->insn_index = idx;
    msgf(res, "instruction %u (%s): %s", idx, uname[unit], rule_name(rule));
    break;
  }
  res->sim_cycles = t->cycle - c0;
  return res->status;
}

}  // extern "C"
