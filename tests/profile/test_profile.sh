#!/usr/bin/env bash
# Tests of `ovta profile` and `ovta bench` on the shipped Fashion-MNIST model (models/fmnist/):
#   - fsim, one image (--json): the per-layer MACs equal the values computed here from the ONNX
#     model's own shapes (onnx shape inference, Conv: numel(Y) x Cin/group x KH x KW, Gemm:
#     M x N x K); the accelerator layers are exactly the Convs and the Gemm; their DRAM bytes
#     cover at least the logical weights, inputs and outputs; CPU layers have no device counts;
#     the totals are the sums of the layers; fsim counts no cycles (null);
#   - tsim, the same image (--json --trace-json --plots): the same MACs, instructions and micro-ops
#     as on fsim; every accelerator layer has cycles; the layers' cycles sum to the total, which
#     equals the cycles per image `ovta eval` reports for that image; utilization =
#     MACs / (cycles x 256); the trace is valid JSON in the Trace Event format, has events of the
#     load, compute and store modules, one span per accelerator layer lasting its cycles, and
#     each span holds exactly that layer's device instructions; the plots are PNGs (gnuplot);
#   - a folder from `ovta compile --target accel` profiles to the same MACs and micro-ops; the
#     text table; `ovta bench` on fsim prints JSON with its benchmarks ok;
#   - the CPU path with --repeat 4: the same layers as one run, positive per-layer minima summing
#     to the total;
#   - bad inputs give one "ovta: error:" line and a non-zero exit.
# Usage: tests/profile/test_profile.sh [PATH/TO/ovta]. Prints cmocka-style lines. Needs Debian's
# /usr/bin/python3 with numpy and onnx (python3-onnx, installed by tools/install-deps.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
M=models/fmnist
MODEL=$M/fmnist_cnn.onnx
IMGS=(--images $M/test_images.npy --calib $M/calib_images.npy --index 3)

echo "[==========] Running ovta profile tests."

# MACs of every Conv / Gemm of the ONNX model, from its own shapes (onnx shape inference):
# written as JSON {node name: MACs} for the checks below.
"$PY" - "$MODEL" "$T/macs.json" <<'EOF'
import json, sys
import onnx
from onnx import shape_inference
m = onnx.load(sys.argv[1])
# the batch dim is symbolic: fix it to 1 before inference
for d in m.graph.input[0].type.tensor_type.shape.dim[:1]:
    d.ClearField("dim_param"); d.dim_value = 1
g = shape_inference.infer_shapes(m).graph
shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(g.value_info) + list(g.output) + list(g.input)}
inits = {t.name: list(t.dims) for t in g.initializer}
macs = {}
for n in g.node:
    if n.op_type == "Conv":
        y = shapes[n.output[0]]; w = inits[n.input[1]]
        group = next((a.i for a in n.attribute if a.name == "group"), 1)
        out = 1
        for v in y: out *= v
        macs[n.name] = out * w[1] * w[2] * w[3]          # w: [O, C/group, KH, KW]
    elif n.op_type == "Gemm":
        a = shapes[n.input[0]]; w = inits[n.input[1]]
        tb = next((x.i for x in n.attribute if x.name == "transB"), 0)
        N = w[0] if tb else w[1]
        macs[n.name] = a[0] * a[1] * N                   # M x K x N
json.dump(macs, open(sys.argv[2], "w"))
EOF

# ---------------------------------------------------------------- fsim
run "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend fsim --json
cp "$T/out" "$T/fsim.json"
if [ $rc -ne 0 ]; then bad "fsim_runs" "exit $rc"; else ok "fsim_runs"; fi
pycheck "fsim_macs_equal_shapes" '
import json, sys
p = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))
errs = []
acc = [l for l in p["layers"] if l["where"] == "accel"]
# the convs, the dense layer, the two max pools and the global average pool (int8
# ovta.QMaxPool / ovta.QGlobalAvgPool on the ALU, 0 MACs)
pools = ["/features/features.3/MaxPool", "/features/features.7/MaxPool", "/pool/GlobalAveragePool"]
if sorted(l["name"] for l in acc) != sorted(list(ref) + pools): errs.append("accel layers %s, convs/gemm %s + pools" % ([l["name"] for l in acc], sorted(ref)))
for l in p["layers"]:
    want = ref.get(l["name"], 0)
    if l["macs"] != want: errs.append("%s: macs %s, from the shapes %s" % (l["name"], l["macs"], want))
if len(ref) != 4 or sum(ref.values()) != 1919872: errs.append("reference MACs %s" % ref)
print("; ".join(errs) if errs else "ok")' "$T/fsim.json" "$T/macs.json"
pycheck "fsim_counters" '
import json, sys
p = json.load(open(sys.argv[1]))
errs = []
# logical sizes of the fmnist layers (models/fmnist/train.py): input, weights, output elements
logical = {"/features/features.0/Conv": (28*28*1, 16*1*9, 16*28*28), "/features/features.4/Conv": (16*14*14, 32*16*9, 32*14*14),
           "/features/features.8/Conv": (32*7*7, 64*32*9, 64*7*7), "/fc/Gemm": (64, 10*64, 10),
           "/features/features.3/MaxPool": (16*28*28, 0, 16*14*14), "/features/features.7/MaxPool": (32*14*14, 0, 32*7*7),
           "/pool/GlobalAveragePool": (64*7*7, 0, 64)}
for l in p["layers"]:
    b = l["bytes_read"]
    if l["where"] == "cpu":
        if l["insns"] or l["uops"] or any(b.values()) or l["bytes_written"] or l["cycles"] is not None:
            errs.append("cpu layer %s has device counts" % l["name"])
        continue
    x, w, y = logical[l["name"]]
    if l["cycles"] is not None or l["utilization"] is not None: errs.append("%s: fsim cycles %s" % (l["name"], l["cycles"]))
    # the pools (ALU) load no ACC data: no bias
    if b["wgt"] < w or b["inp"] < x or l["bytes_written"] < y or b["uop"] <= 0 or (b["acc"] <= 0 and "Pool" not in l["name"]):
        errs.append("%s: bytes %s written %s below logical x %d w %d y %d" % (l["name"], b, l["bytes_written"], x, w, y))
    if l["insns"] < 5 or l["gemm_uops"] <= 0 or l["uops"] != l["gemm_uops"] + l["alu_uops"]:
        errs.append("%s: insns %s uops %s" % (l["name"], l["insns"], l["uops"]))
    # every GEMM micro-op does BLOCK_IN x BLOCK_OUT = 256 MACs: at least the useful ones
    if l["gemm_uops"] * 256 < l["macs"]: errs.append("%s: %d gemm uops cannot do %d MACs" % (l["name"], l["gemm_uops"], l["macs"]))
t = p["totals"]
for k in ["macs", "insns", "uops", "gemm_uops", "alu_uops", "bytes_written"]:
    s = sum(l[k] for l in p["layers"])
    if t[k] != s: errs.append("total %s %s != sum %s" % (k, t[k], s))
for k in ["uop", "wgt", "inp", "acc"]:
    if t["bytes_read"][k] != sum(l["bytes_read"][k] for l in p["layers"]): errs.append("total bytes_read %s" % k)
if t["cycles"] is not None: errs.append("fsim total cycles %s" % t["cycles"])
if p["accel_layers"] != 7 or p["cpu_layers"] != len(p["layers"]) - 7: errs.append("layer counts")
print("; ".join(errs) if errs else "ok")' "$T/fsim.json"

# ---------------------------------------------------------------- tsim
if [ -e build/tsim/default/libovta_tsim.so ] || [ -n "${OVTA_TSIM_DIR:-}${OVTA_TSIM_LIB:-}" ]; then
  run "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend tsim --json --trace-json "$T/trace.json" --plots "$T/plots"
  cp "$T/out" "$T/tsim.json"
  if [ $rc -ne 0 ]; then bad "tsim_runs" "exit $rc"; else ok "tsim_runs"; fi
  run "$OVTA" eval "$MODEL" --images $M/test_images.npy --labels $M/test_labels.npy --calib $M/calib_images.npy \
    --backend tsim --count 1 --json --quiet
  # eval runs the first image; profile ran --index 3: cycles do not depend on the values
  cp "$T/out" "$T/eval.json"
  pycheck "tsim_cycles_sum_to_total" '
import json, sys
p = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2])); ev = json.load(open(sys.argv[3]))
errs = []
acc = [l for l in p["layers"] if l["where"] == "accel"]
for l in acc:
    if not l["cycles"] or l["cycles"] <= 0: errs.append("%s: no cycles" % l["name"])
    elif abs(l["utilization"] - l["macs"] / (l["cycles"] * 256.0)) > 1e-9: errs.append("%s: utilization" % l["name"])
s = sum(l["cycles"] or 0 for l in p["layers"])
if p["totals"]["cycles"] != s: errs.append("total cycles %s != sum of layers %s" % (p["totals"]["cycles"], s))
e = ev["int8"]["cycles_per_image"]
if e != s: errs.append("ovta eval: %s cycles per image, profile %s" % (e, s))
for a, b in zip(p["layers"], f["layers"]):
    for k in ["name", "macs", "insns", "gemm_uops", "alu_uops", "bytes_written"]:
        if a[k] != b[k]: errs.append("%s: %s tsim %s fsim %s" % (a["name"], k, a[k], b[k]))
    if a["bytes_read"] != b["bytes_read"]: errs.append("%s: bytes_read differ" % a["name"])
print("; ".join(errs) if errs else "ok")' "$T/tsim.json" "$T/fsim.json" "$T/eval.json"
  pycheck "tsim_trace_json" '
import json, sys
d = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
errs = []
ev = d["traceEvents"] if isinstance(d, dict) else d
for e in ev:
    if e.get("ph") not in ("X", "M") or "pid" not in e or "name" not in e: errs.append("bad event %s" % e); break
    if "tid" not in e and not (e["ph"] == "M" and e["name"] == "process_name"): errs.append("no tid: %s" % e); break
    if e["ph"] == "X" and not (isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
        errs.append("bad X event %s" % e); break
ins = [e for e in ev if e["ph"] == "X" and e.get("cat") in ("load", "compute", "store")]
cats = set(e["cat"] for e in ins)
if cats != {"load", "compute", "store"}: errs.append("module events: %s" % cats)
spans = [e for e in ev if e["ph"] == "X" and e.get("cat") == "layer"]
acc = [l for l in p["layers"] if l["where"] == "accel"]
mhz = p["clock_mhz"]
if [s["name"] for s in spans] != [l["name"] for l in acc]: errs.append("spans %s" % [s["name"] for s in spans])
for s, l in zip(spans, acc):
    if round(s["dur"] * mhz) != l["cycles"]: errs.append("%s: span %s us, %s cycles" % (l["name"], s["dur"], l["cycles"]))
    inside = [e for e in ins if e["ts"] >= s["ts"] - 1e-6 and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-6]
    if len(inside) != l["insns"]: errs.append("%s: %d instruction events in its span, %d instructions" % (l["name"], len(inside), l["insns"]))
if len(ins) != p["totals"]["insns"]: errs.append("%d instruction events, %d instructions" % (len(ins), p["totals"]["insns"]))
print("; ".join(errs) if errs else "ok")' "$T/trace.json" "$T/tsim.json"
  if command -v gnuplot >/dev/null; then
    pycheck "tsim_plots" '
import sys, os
errs = []
for f in ["roofline.png", "utilization.png", "layers.dat"]:
    p = os.path.join(sys.argv[1], f)
    if not os.path.isfile(p) or os.path.getsize(p) == 0: errs.append("%s missing or empty" % f); continue
    if f.endswith(".png") and open(p, "rb").read(8) != b"\x89PNG\r\n\x1a\n": errs.append("%s is not a PNG" % f)
rows = [l for l in open(os.path.join(sys.argv[1], "layers.dat")) if not l.startswith("#")] if not errs else []
if not errs and len(rows) != 7: errs.append("layers.dat has %d rows" % len(rows))
print("; ".join(errs) if errs else "ok")' "$T/plots"
  else
    echo "[  SKIPPED ] tsim_plots: no gnuplot"
  fi
else
  echo "[  SKIPPED ] tsim: build/tsim/default/libovta_tsim.so not built"
fi

# ---------------------------------------------------------------- compiled folder, text, bench
run "$OVTA" compile "$MODEL" --target accel --calib $M/calib_images.npy -o "$T/fm.ovta"
"$PY" -c 'import numpy as np, sys; x = np.load(sys.argv[1])[3:4, None].astype(np.float32) / 255; np.save(sys.argv[2], x)' \
  $M/test_images.npy "$T/x.npy"
run "$OVTA" profile "$T/fm.ovta" --input image="$T/x.npy" --backend fsim --json
cp "$T/out" "$T/folder.json"
pycheck "folder_same_as_model" '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
errs = []
if len(a["layers"]) != len(b["layers"]): errs.append("%d vs %d layers" % (len(a["layers"]), len(b["layers"])))
for x, y in zip(a["layers"], b["layers"]):
    for k in ["name", "op", "where", "macs", "gemm_uops", "alu_uops", "insns"]:
        if x[k] != y[k]: errs.append("%s: %s %s vs %s" % (x["name"], k, x[k], y[k]))
print("; ".join(errs) if errs else "ok")' "$T/folder.json" "$T/fsim.json"
run "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend fsim
if [ $rc -eq 0 ] && grep -q '^ *[0-9]* /features/features.0/Conv *ovta.QConv *accel *- *112896 ' "$T/out" &&
  grep -q '^ *total .* 1919872 ' "$T/out" && grep -q '^accelerator: 7 layer(s), 1.920 MMAC' "$T/out"; then
  ok "text_table"
else bad "text_table" "rows not as expected"; fi
run "$OVTA" bench --only fsim,fmnist --backend fsim
pycheck "bench_json" '
import json, sys
d = json.load(open(sys.argv[1]))
errs = []
bs = d["benchmarks"]
if [b["name"] for b in bs] != ["fsim", "fmnist"]: errs.append("benchmarks %s" % [b["name"] for b in bs])
for b in bs:
    if not b["ok"] or not b["results"]: errs.append("%s not ok: %s" % (b["name"], b.get("error")))
if not errs and bs[1]["results"][0]["totals"]["macs"] != 1919872: errs.append("fmnist macs")
if not errs and bs[0]["results"][0]["bench"] != "fsim": errs.append("fsim results")
print("; ".join(errs) if errs else "ok")' "$T/out"
run "$OVTA" profile --help
if [ $rc -eq 0 ] && grep -q '^usage: ovta profile' "$T/out"; then ok "profile_help"; else bad "profile_help" "exit $rc"; fi
run "$OVTA" bench --help
if [ $rc -eq 0 ] && grep -q '^usage: ovta bench' "$T/out"; then ok "bench_help"; else bad "bench_help" "exit $rc"; fi

# ---------------------------------------------------------------- --repeat on the cpu
# --repeat 4: the same layers (names, ops, MACs) as one run; every layer's time is a positive
# minimum and the total is the sum of the layers' times.
run "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend cpu --json --threads 2
cp "$T/out" "$T/cpu1.json"
run "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend cpu --json --threads 2 --repeat 4
r=$("$PY" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
errs = []
key = lambda p: [(l["name"], l["op"], l["macs"]) for l in p["layers"]]
if key(a) != key(b) or not b["layers"]: errs.append("layers differ")
if any(not l["time_us"] > 0 for l in b["layers"]): errs.append("a layer time not positive")
if abs(sum(l["time_us"] for l in b["layers"]) - b["totals"]["time_us"]) > 1e-3 * b["totals"]["time_us"] + 0.01: errs.append("total != sum")
print("; ".join(errs) if errs else "ok")' "$T/cpu1.json" "$T/out" 2>&1)
if [ $rc -eq 0 ] && [ "$r" = ok ]; then ok "profile_cpu_repeat"; else bad "profile_cpu_repeat" "exit $rc: $r"; fi

# ---------------------------------------------------------------- bad inputs
expect_error "bad_repeat" "--repeat needs a count*" "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend cpu --repeat 0
expect_error "bad_repeat_remote" "--repeat is not available with --remote*" "$OVTA" profile "$T/fm.ovta" --input image="$T/x.npy" --remote 127.0.0.1:1 --repeat 2
expect_error "bad_no_model_file" "*no_such.onnx*" "$OVTA" profile "$T/no_such.onnx" "${IMGS[@]}"
expect_error "bad_no_input" "give exactly one of --input*" "$OVTA" profile "$MODEL"
expect_error "bad_trace_on_fsim" "--trace-json needs --backend tsim*" "$OVTA" profile "$MODEL" "${IMGS[@]}" --trace-json "$T/t.json"
expect_error "bad_index" "*sample 100000 of 500*" "$OVTA" profile "$MODEL" --images $M/test_images.npy --index 100000
"$PY" -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 1, 14, 14), np.float32))' "$T/small.npy"
expect_error "bad_calib_shape" "--calib *: samples are 1x1x14x14, the input is 1x1x28x28" \
  "$OVTA" profile "$MODEL" --images $M/test_images.npy --calib "$T/small.npy"
expect_error "bad_folder_with_calib" "--calib, --config and --vt apply to a model file*" \
  "$OVTA" profile "$T/fm.ovta" --input image="$T/x.npy" --calib $M/calib_images.npy
expect_error "bad_folder_on_cpu" "*runs 7 node(s) on the accelerator*" "$OVTA" profile "$T/fm.ovta" --input image="$T/x.npy" --backend cpu
expect_error "bad_backend" "*nope*" "$OVTA" profile "$MODEL" "${IMGS[@]}" --backend nope
expect_error "bad_option" "unknown option --frobnicate*" "$OVTA" profile "$MODEL" --frobnicate
expect_error "bad_bench_name" "unknown benchmark 'nope'*" "$OVTA" bench --only nope

finish
