#!/usr/bin/env bash
# `make bench-cpu [REPEAT=N]`: the fp32 CPU path against onnxruntime-node on torchvision's
# ResNet-18 and MobileNetV2 (seeded random weights, opset 13, 1x3x224x224; bench/cpu_export.py
# writes them into BUILD/bench-cpu/, never committed), the same input for both, in one run:
#   ovta: `ovta compile --passes DEFAULT` (ovta-opt's default pipeline: BatchNorm folded, bias and
#   activations fused into the convs, as onnxruntime's graph optimizations do), then
#   `ovta run --repeat N --threads T` (T = 1 and 2);
#   int8 on the CPU: the same model through `ovta-opt` with the quantize pass (power-of-two int8,
#   calibrated on one seeded random input: the speed does not depend on the scales), compiled and
#   run the same way (ovta.QConv etc. on the CPU kernels, the accelerator's bit-exact twin);
#   onnxruntime-node: tools/ort-ref/ort-run.js time (1 and 2 intra-op threads, graph
#   optimization all), N runs after one warm-up.
# Prints one table: median wall and CPU (all threads) ms per run, and the ratios ovta / ort
# (CPU time is the steadier figure on a shared machine), ovta 1 thread / 2 threads (wall), and
# int8 / fp32 (CPU time, 1 thread); then ROUNDS (default 3) alternated rounds of the fp32 and the
# int8 model on 1 thread, and the median of the rounds' int8/fp32 ratios (the steadier figure: the
# machine's speed drifts between the table's runs, which come one model kind after the other).
# Checks that ovta's outputs with 1 and 2 threads are identical and close to onnxruntime's.
# Needs Debian's python3-torch/torchvision (bench/install-torch.sh) and onnxruntime-node (npm).
set -eu
b=${1:-build}
cd "$(dirname "$0")/.."
n=${REPEAT:-20}
d=$b/bench-cpu
js=tools/ort-ref/ort-run.js
passes=infer,fold,dce,fold-bn,fuse,infer,fold,dce,verify
[ -d "$b/ort-ref/node_modules/onnxruntime-node" ] || bash tools/ort-ref/test-ort.sh "$b" >&2
bash bench/install-torch.sh >&2
if [ ! -s "$d/mobilenet_v2.onnx" ] || [ bench/cpu_export.py -nt "$d/mobilenet_v2.onnx" ]; then
  /usr/bin/python3 bench/cpu_export.py "$d" >&2
fi
export NODE_PATH=$PWD/$b/ort-ref/node_modules
rows=()
alts=()
rounds=${ROUNDS:-3}
cpu_us() { sed -n 's/.*, CPU time median \([0-9.]*\) us.*/\1/p'; }
for m in resnet18 mobilenet_v2; do
  x=$d/${m}_input.npy
  if [ ! -s "$d/$m.ovta/plan.json" ] || [ "$b/ovta" -nt "$d/$m.ovta/plan.json" ]; then
    "$b/ovta" compile "$d/$m.onnx" -o "$d/$m.ovta" --passes "$passes" >&2
  fi
  q=$d/${m}_int8
  if [ ! -s "$q.json" ] || [ compiler/passes/quantize.c -nt "$q.json" ]; then  # slow: calibration
    "$b/ovta-opt" --passes="${passes%,verify},quantize,verify" --calib-random=1 --emit=json "$d/$m.onnx" >"$q.json"
  fi
  if [ ! -s "$q.ovta/plan.json" ] || [ "$b/ovta" -nt "$q.ovta/plan.json" ] || [ "$q.json" -nt "$q.ovta/plan.json" ]; then
    "$b/ovta" compile "$q.json" -o "$q.ovta" >&2
  fi
  line=$m
  for t in 1 2; do
    r=$("$b/ovta" run "$d/$m.ovta" --input image="$x" --output-dir "$d/out-$m-t$t" --repeat "$n" --threads "$t" |
      sed -n 's/.*; median \([0-9.]*\) us, CPU time median \([0-9.]*\) us.*/\1 \2/p')
    o=$(node $js time "$d/$m.onnx" "$t" "$n" image="$x" | sed -n 's/ort: median wall \([0-9.]*\) ms, median CPU \([0-9.]*\) ms.*/\1 \2/p')
    line="$line $r $o"
  done
  for t in 1 2; do
    r=$("$b/ovta" run "$q.ovta" --input image="$x" --output-dir "$d/out-${m}_int8-t$t" --repeat "$n" --threads "$t" |
      sed -n 's/.*; median \([0-9.]*\) us, CPU time median \([0-9.]*\) us.*/\1 \2/p')
    line="$line $r"
  done
  cmp -s "$d/out-${m}_int8-t1/logits.npy" "$d/out-${m}_int8-t2/logits.npy" || { echo "bench-cpu: $m int8: outputs differ between 1 and 2 threads" >&2; exit 1; }
  cmp -s "$d/out-$m-t1/logits.npy" "$d/out-$m-t2/logits.npy" || { echo "bench-cpu: $m: outputs differ between 1 and 2 threads" >&2; exit 1; }
  node $js run "$d/$m.onnx" "$d/ort-$m" image="$x" >/dev/null
  node $js compare "$d/out-$m-t1/logits.npy" "$d/ort-$m/logits.npy" 1e-3 1e-3 >&2
  rows+=("$line")
  alt=$m
  for k in $(seq "$rounds"); do
    f=$("$b/ovta" run "$d/$m.ovta" --input image="$x" --output-dir "$d/out-$m-alt" --repeat "$n" --threads 1 | cpu_us)
    i=$("$b/ovta" run "$q.ovta" --input image="$x" --output-dir "$d/out-${m}_int8-alt" --repeat "$n" --threads 1 | cpu_us)
    alt="$alt $f $i"
  done
  alts+=("$alt")
done
/usr/bin/python3 - "$n" "$rounds" "${rows[@]}" -- "${alts[@]}" <<'PY'
import statistics, sys
n, rounds = sys.argv[1], sys.argv[2]
sep = sys.argv.index("--")
rows, alts = sys.argv[3:sep], sys.argv[sep + 1:]
print("bench-cpu: median ms per run over %s runs (wall / CPU of all threads); ratio = ovta / onnxruntime" % n)
print("%-13s %7s %17s %17s %11s %17s %17s %11s %9s" % ("model", "threads", "ovta wall/cpu", "ort wall/cpu", "ratio cpu",
                                                     "ovta wall/cpu", "ort wall/cpu", "ratio cpu", "ovta 1/2"))
int8 = []
for r in rows:
    m, *v = r.split()
    ow1, oc1, rw1, rc1, ow2, oc2, rw2, rc2, qw1, qc1, qw2, qc2 = map(lambda s: float(s) if s else float("nan"), v)
    ow1, oc1, ow2, oc2 = ow1 / 1e3, oc1 / 1e3, ow2 / 1e3, oc2 / 1e3
    qw1, qc1, qw2, qc2 = qw1 / 1e3, qc1 / 1e3, qw2 / 1e3, qc2 / 1e3
    print("%-13s %7s %8.1f/%8.1f %8.1f/%8.1f %10.2fx %8.1f/%8.1f %8.1f/%8.1f %10.2fx %8.2fx" %
          (m, "1 | 2", ow1, oc1, rw1, rc1, oc1 / rc1, ow2, oc2, rw2, rc2, oc2 / rc2, ow1 / ow2))
    int8.append((m, qw1, qc1, qw2, qc2, qc1 / oc1, qw1 / qw2))
print("int8 on the CPU path (ovta.QConv ...): median ms per run (wall / CPU); int8/fp32 = CPU time, 1 thread")
print("%-13s %17s %17s %11s %9s" % ("model", "1 thread", "2 threads", "int8/fp32", "int8 1/2"))
for m, qw1, qc1, qw2, qc2, rq, s in int8:
    print("%-13s %8.1f/%8.1f %8.1f/%8.1f %10.2fx %8.2fx" % (m, qw1, qc1, qw2, qc2, rq, s))
print("int8/fp32 alternated (%s rounds of fp32 then int8, 1 thread, CPU time medians of %s runs each):" % (rounds, n))
for a in alts:
    m, *v = a.split()
    v = [float(x) for x in v]
    f, q = v[0::2], v[1::2]
    ratios = [b / a for a, b in zip(f, q)]
    print("%-13s fp32 %s ms, int8 %s ms: int8/fp32 median %.3fx (rounds %s)" % (
        m, " ".join("%.2f" % (x / 1e3) for x in f), " ".join("%.2f" % (x / 1e3) for x in q),
        statistics.median(ratios), " ".join("%.3f" % r for r in ratios)))
PY
