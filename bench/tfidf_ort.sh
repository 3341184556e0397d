#!/usr/bin/env bash
# `make bench-tfidf`: TfIdfVectorizer on the CPU path against onnxruntime-node, taken in one run.
# A seeded model (TFIDF with weights; a pool of 2000 1-grams, ~2000 2-grams and ~1000 3-grams
# over 3000 tokens; min 1, max 3, max_skip_count 2) on a seeded int64 [32, 200] input drawn from
# 300 tokens (so n-grams hit); `ovta run --repeat 50` and onnxruntime-node (one intra-op thread,
# 50 runs after one warm-up) alternate 3 times; prints each time, the outputs' largest difference
# and the ratio of the medians. Needs Debian's python3-onnx and onnxruntime-node (make test-ort).
set -eu
b=${1:-build}
cd "$(dirname "$0")/.."
d=$b/bench-tfidf
mkdir -p "$d"
[ -d "$b/ort-ref/node_modules/onnxruntime-node" ] || bash tools/ort-ref/test-ort.sh "$b" >&2
/usr/bin/python3 - "$d" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, save
d = sys.argv[1]
rng = np.random.default_rng(3)
V = 3000
uni = rng.choice(V, 2000, replace=False).tolist()
bi = sorted({tuple(int(v) for v in rng.integers(0, V, 2)) for _ in range(2000)})
tri = sorted({tuple(int(v) for v in rng.integers(0, V, 3)) for _ in range(1000)})
pool = [int(v) for v in uni] + [v for g in bi for v in g] + [v for g in tri for v in g]
n = len(uni) + len(bi) + len(tri)
node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TFIDF", min_gram_length=1, max_gram_length=3, max_skip_count=2,
                        ngram_counts=[0, len(uni), len(uni) + 2 * len(bi)], ngram_indexes=list(range(n)), pool_int64s=pool,
                        weights=rng.uniform(0.1, 3, n).tolist())
g = helper.make_graph([node], "tfidf", [helper.make_tensor_value_info("x", TensorProto.INT64, [32, 200])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
save(m, d + "/tfidf.onnx")
np.save(d + "/x.npy", rng.integers(0, V // 10, (32, 200)).astype(np.int64))
PY
cat > "$d/ort.js" <<'JS'
const ort = require('onnxruntime-node');
const fs = require('fs');
(async () => {
  const d = process.argv[2], buf = fs.readFileSync(d + '/x.npy'), hl = buf.readUInt16LE(8);
  const x = new ort.Tensor('int64', new BigInt64Array(buf.buffer.slice(buf.byteOffset + 10 + hl, buf.byteOffset + buf.length)), [32, 200]);
  const s = await ort.InferenceSession.create(d + '/tfidf.onnx', {intraOpNumThreads: 1});
  let r = await s.run({x});
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 50; i++) r = await s.run({x});
  console.log((Number(process.hrtime.bigint() - t0) / 50 / 1000).toFixed(1));
  fs.writeFileSync(d + '/ort_y.bin', Buffer.from(r.y.data.buffer));
})();
JS
"$b/ovta" compile "$d/tfidf.onnx" -o "$d/tfidf.ovta" >&2
ov=() ot=()
for k in 1 2 3; do
  ov+=("$("$b/ovta" run "$d/tfidf.ovta" --input x="$d/x.npy" --output-dir "$d" --repeat 50 2>/dev/null | sed -n 's/time per run: \([0-9.]*\) us.*/\1/p')")
  ot+=("$(NODE_PATH="$b/ort-ref/node_modules" node "$d/ort.js" "$d")")
done
echo "ovta us per run: ${ov[*]}; onnxruntime-node: ${ot[*]}"
/usr/bin/python3 - "$d" "${ov[*]}" "${ot[*]}" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
a = np.load(d + "/y.npy")
b = np.fromfile(d + "/ort_y.bin", np.float32).reshape(a.shape)
ov, ot = (np.median([float(v) for v in s.split()]) for s in sys.argv[2:4])
print("largest |ovta - onnxruntime|: %g over %d nonzero outputs; onnxruntime / ovta time: %.2f" % (abs(a - b).max(), (b != 0).sum(), ot / ov))
PY
