#!/usr/bin/env python3
"""resnet18_floor.py PROFILE.json [--block N] [--batch N]: where an accelerator model's cycles go
against the floors its lowering sets (issue 15: how far can fusion take ResNet-18?).

Reads the JSON of `ovta profile --json-out` (e.g. build/resnet18/profile-tsim.json, written by
`make bench-resnet18`) and prints, per accelerator layer:
  * cycles (tsim), MAC utilization;
  * the compute floor: GEMM + ALU micro-ops (the compute module retires at most one micro-op a
    cycle and runs GEMMs and ALU passes one after the other, hw/rtl/README.md);
  * the DMA floor: DRAM bytes read + written / bus bytes per cycle (one beat per cycle);
  * slack: cycles - max(the two floors) (fill, drain, stalls, instruction gaps).
Then the whole model: the peak floor (MACs / peak MACs per cycle), the sum of the conv/dense
layers' cycles (what is left if the adds and the pool cost nothing), and two estimates of a
residual add fused into the epilogue of the conv producing one operand (the conv is compute
bound, so the fused add costs its extra ALU / GEMM micro-ops per output vector of B x BO):
  * exact: the unfused int8 rule kept (conv requantized and clipped to int8 first, then the
    add's shifts and requantization): 6 micro-ops per output vector with the other operand in a
    region of its own (fill, identity GEMM, one left shift, tensor ADD, SHR, CLP), 4 with it
    accumulated onto the conv's clipped output by a GEMM against the identity times 2^d as the
    standalone add now does (left shift or none, GEMM, SHR, CLP; + ADD when the rounding
    constant cannot be a fill);
  * accumulator: the other operand added into the conv's accumulator before its one
    requantization (a new int8 rule: one rounding): its identity GEMM with weight 2^k, k <= 6
    (1), else GEMM + SHR -k (2): 1..2 micro-ops per output vector.
The max pool is counted as removed (fused into the stem's store at no cost): an optimistic bound.
Standard library only.
"""
import json
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
    if len(args) != 1 or "--help" in argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2 if "--help" not in argv else 0
    block, batch = int(opts.get("block", 16)), int(opts.get("batch", 1))
    p = json.load(open(args[0]))
    peak, bus = p["peak_macs_per_cycle"], p["bus_bytes_per_cycle"]
    acc = [l for l in p["layers"] if l["where"] == "accel" and l["cycles"] is not None]
    if not acc:
        print("resnet18_floor: no accelerator layer with cycles in %s (profile on tsim)" % args[0], file=sys.stderr)
        return 1
    print("| # | layer | op | cycles | util | compute floor (GEMM+ALU uops) | DMA floor | slack |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    tot = {"cyc": 0, "conv": 0, "add": 0, "pool": 0, "macs": 0, "addvec": 0, "floor": 0, "other": 0, "convfloor": 0, "convgemm": 0, "convalu": 0}
    for l in acc:
        comp = l["gemm_uops"] + l["alu_uops"]
        dma = (sum(l["bytes_read"].values()) + l["bytes_written"]) / bus
        fl = max(comp, dma)
        util = l["macs"] / (l["cycles"] * peak)
        print("| %d | `%s` | %s | %d | %.1f%% | %d | %d | %d |" % (l["index"], l["name"], l["op"], l["cycles"], 100 * util,
                                                                comp, dma, l["cycles"] - fl))
        tot["cyc"] += l["cycles"]
        tot["macs"] += l["macs"]
        tot["floor"] += fl
        op = l["op"].split(".")[-1]
        if op == "QAdd":
            tot["add"] += l["cycles"]
            tot["addvec"] += l["bytes_written"] // (batch * block)
        elif op == "QMaxPool":
            tot["pool"] += l["cycles"]
        elif op in ("QConv", "QDense"):
            tot["conv"] += l["cycles"]
            tot["convfloor"] += fl
            tot["convgemm"] += l["gemm_uops"]
            tot["convalu"] += l["alu_uops"]
        else:
            tot["other"] += l["cycles"]
    print()
    print("accelerator cycles: %d (%d layers); MACs %d; utilization %.1f%%" % (tot["cyc"], len(acc), tot["macs"],
                                                                             100 * tot["macs"] / (tot["cyc"] * peak)))
    print("sum of the layers' floors (max of compute and DMA): %d" % tot["floor"])
    print("peak floor (every MAC at %d a cycle, nothing else): %d" % (peak, tot["macs"] // peak))
    print("the residual adds: %d cycles (%d output vectors); the max pool: %d" % (tot["add"], tot["addvec"], tot["pool"]))
    print("conv/dense layers: %d cycles; their floors %d (GEMM micro-ops %d, ALU micro-ops %d)"
          % (tot["conv"], tot["convfloor"], tot["convgemm"], tot["convalu"]))
    print("other accelerator layers (global average pool): %d" % tot["other"])
    base = tot["conv"] + tot["other"]
    print("conv/dense layers + the others (the adds and the pool free): %d" % base)
    for name, per in (("exact rule, own region", 6), ("exact rule, accumulated", 4), ("accumulator rule, weight 2^k", 1), ("accumulator rule, GEMM + SHR", 2),
                      ("accumulator rule, bias after the shifted operand", 3)):
        print("adds fused (%s: %d uops per output vector), pool free: %d" % (name, per, base + per * tot["addvec"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
