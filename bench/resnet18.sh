#!/usr/bin/env bash
# `make bench-resnet18 [BACKEND=tsim|fsim] [CONFIG=NAME]`: torchvision's ResNet-18 (seeded random
# weights, 224x224) end to end on the accelerator.
#   1. export: models/resnet18/export.py into BUILD/resnet18/ (45 MB, never committed): the ONNX
#      model, one seeded input, 4 seeded calibration inputs, torch's fp32 outputs for them
#      (installs Debian's python3-torch/torchvision when missing, bench/install-torch.sh);
#   2. compile int8: `ovta compile --target accel --calib calib.npy` (symmetric int8, calibrated
#      on the 4 calibration inputs; every conv and the dense layer on the accelerator; max pool,
#      the residual adds, global average pool and the (de)quantize/(un)pack glue on the CPU);
#   3. one inference with `ovta profile` on BACKEND (default tsim, cycle-accurate): the per-layer
#      table (cycles, MACs, utilization, DRAM bytes, instructions, micro-ops, CPU time), the
#      Chrome trace (BUILD/resnet18/trace.json) and the plots (BUILD/resnet18/plots/, gnuplot);
#   4. a summary: accelerator cycles per inference, MAC utilization, and the int8 output against
#      torch's fp32 output (top-1 agreement, top-5 overlap, cosine similarity).
# With OVTA_BENCH_JSON=1 (what `ovta bench --only resnet18` sets) stdout is one JSON object (the
# profile plus "compile_s", "profile_s", "vs_torch"); everything else goes to stderr.
set -eu
b=${1:-build}
cd "$(dirname "$0")/.."
backend=${BACKEND:-tsim}
config=${CONFIG:-default}
json=${OVTA_BENCH_JSON:-0}
d=$b/resnet18
bash bench/install-torch.sh >&2
if [ ! -s "$d/resnet18.onnx" ] || [ ! -s "$d/calib.npy" ] || [ models/resnet18/export.py -nt "$d/resnet18.onnx" ]; then
  /usr/bin/python3 models/resnet18/export.py "$d" >&2
fi
plan=$d/resnet18-int8-$config.ovta
t0=$(date +%s.%N)
# compiled again when the model, the calibration inputs or the ovta binary are newer than the plan
if [ ! -s "$plan/plan.json" ] || [ "$d/resnet18.onnx" -nt "$plan/plan.json" ] || [ "$d/calib.npy" -nt "$plan/plan.json" ] ||
  [ "$b/ovta" -nt "$plan/plan.json" ]; then
  "$b/ovta" compile "$d/resnet18.onnx" --target accel --calib "$d/calib.npy" --config "$config" -o "$plan" >&2
else
  echo "resnet18: $plan is up to date" >&2
fi
t1=$(date +%s.%N)
extra=()
if [ "$backend" = tsim ]; then extra=(--trace-json "$d/trace.json" --plots "$d/plots"); fi
if [ "$json" = 1 ]; then
  "$b/ovta" profile "$plan" --input image="$d/input.npy" --backend "$backend" --json-out "$d/profile-$backend.json" \
    --output-dir "$d/out-$backend" "${extra[@]}" >&2
else
  "$b/ovta" profile "$plan" --input image="$d/input.npy" --backend "$backend" --json-out "$d/profile-$backend.json" \
    --output-dir "$d/out-$backend" "${extra[@]}"
fi
t2=$(date +%s.%N)
/usr/bin/python3 - "$d" "$backend" "$config" "$t0" "$t1" "$t2" "$json" <<'EOF'
import json, sys
import numpy as np
d, backend, config, t0, t1, t2, as_json = sys.argv[1:8]
p = json.load(open(d + "/profile-%s.json" % backend))
y = np.load(d + "/out-%s/logits.npy" % backend).astype(np.float64).ravel()
r = np.load(d + "/torch_out.npy").astype(np.float64).ravel()
top5 = lambda v: set(np.argsort(-v)[:5].tolist())
cos = float(np.dot(y, r) / (np.linalg.norm(y) * np.linalg.norm(r)))
vs = {"top1_agree": bool(np.argmax(y) == np.argmax(r)), "top5_overlap": len(top5(y) & top5(r)),
      "cosine": round(cos, 4), "max_abs_diff": round(float(np.max(np.abs(y - r))), 4)}
p["compile_s"] = round(float(t1) - float(t0), 2)
p["profile_s"] = round(float(t2) - float(t1), 2)
p["vs_torch"] = vs
json.dump(p, open(d + "/profile-%s.json" % backend, "w"), indent=1)
t = p["totals"]
acc = [l for l in p["layers"] if l["where"] == "accel"]
amacs = sum(l["macs"] for l in acc)
out = sys.stderr if as_json == "1" else sys.stdout
print("resnet18: int8 on %s (config %s): %d accelerator layers, %d CPU layers; %.1f MMAC on the accelerator"
      % (backend, config, p["accel_layers"], p["cpu_layers"], amacs / 1e6), file=out)
if t["cycles"] is not None:
    print("resnet18: accelerator cycles per inference: %d (%.2f ms at %d MHz), MAC utilization %.1f%%"
          % (t["cycles"], t["cycles"] / (p["clock_mhz"] * 1e3), p["clock_mhz"],
             100.0 * amacs / (t["cycles"] * p["peak_macs_per_cycle"])), file=out)
else:
    print("resnet18: %s counts no cycles (BACKEND=tsim does); device instructions %d, micro-ops %d"
          % (backend, t["insns"], t["uops"]), file=out)
print("resnet18: int8 vs torch fp32: top-1 %s, top-5 overlap %d/5, cosine %.4f, max |diff| %.3f"
      % ("agrees" if vs["top1_agree"] else "differs", vs["top5_overlap"], vs["cosine"], vs["max_abs_diff"]), file=out)
print("resnet18: compile %.1f s, profile run %.1f s; JSON in %s/profile-%s.json" % (p["compile_s"], p["profile_s"], d, backend),
      file=out)
if as_json == "1":
    print(json.dumps(p))
EOF
