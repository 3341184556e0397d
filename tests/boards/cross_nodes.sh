#!/usr/bin/env bash
# The CPU operators as ARM code: every ONNX backend node test (Debian's libonnx-testdata) that
# `ovta compile` takes is compiled for this machine and for ARCH's board triple; the host's
# `ovta run` and the cross-built ovta-rt under qemu-user run it on test_data_set_0's inputs, and
# every output is compared byte for byte ("same"), else within the conformance runner's
# tolerance, |a - b| <= 1e-6 + 1e-5 |b| ("close": a libm result one ulp apart), else "DIFF".
# Not in `make test` (minutes): `make test-board-emu-nodes ARCH=armv7|aarch64 [NODES=FILTER]`.
# Usage: tests/boards/cross_nodes.sh BUILD_DIR ARCH [FILTER]. Exit 1 on any DIFF or ARM-only failure.
set -u
B=${1:-build}
ARCH=${2:-armv7}
FILTER=${3:-}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
D=/usr/share/libonnx-testdata/data/node
case $ARCH in
  armv7) triple=armv7a-linux-gnueabihf mcpu=cortex-a9 q=(qemu-arm -L /usr/arm-linux-gnueabihf) ;;
  aarch64) triple=aarch64-linux-gnu mcpu=cortex-a53 q=(qemu-aarch64 -L /usr/aarch64-linux-gnu) ;;
  *) echo "ARCH is armv7 or aarch64" >&2; exit 2 ;;
esac
RT=build-$ARCH/ovta-rt  # run with --threads 1: qemu-user hangs in pthread_create (tests/boards/test_board_emu.sh)
[ -x "$RT" ] || { echo "$RT is not built: make cross ARCH=$ARCH" >&2; exit 2; }

# every test's inputs as .npy, and its --input options (one python for all)
"$PY" - "$D" "$T" "$FILTER" <<'EOF' || exit 1
import os, sys, numpy as np, onnx
from onnx import numpy_helper
d, t, filt = sys.argv[1:4]
with open(os.path.join(t, "list"), "w") as lst:
    for name in sorted(os.listdir(d)):
        if filt not in name: continue
        m = os.path.join(d, name, "model.onnx")
        ds = os.path.join(d, name, "test_data_set_0")
        if not os.path.isdir(ds): continue
        try:
            g = onnx.load(m).graph
            inits = {i.name for i in g.initializer}
            names = [i.name for i in g.input if i.name not in inits]
            opts = []
            os.makedirs(os.path.join(t, name), exist_ok=True)
            for k, n in enumerate(names):
                pb = os.path.join(ds, "input_%d.pb" % k)
                if not os.path.exists(pb): raise ValueError("missing input")
                tp = onnx.TensorProto()
                tp.ParseFromString(open(pb, "rb").read())
                f = os.path.join(t, name, "in%d.npy" % k)
                np.save(f, numpy_helper.to_array(tp))
                opts.append("--input=%s=%s" % (n, f))
        except Exception:
            continue  # sequences, optionals: not tensors
        lst.write("%s\t%s\n" % (name, " ".join(opts)))
EOF

n_same=0 n_close=0 n_diff=0 n_skip=0 n_fail=0
diffs=() fails=()
while IFS=$'\t' read -r name opts; do
  W=$T/$name
  # shellcheck disable=SC2086
  "$B/ovta" compile "$D/$name/model.onnx" -o "$W/host.ovta" >/dev/null 2>&1 &&
    "$B/ovta" run "$W/host.ovta" $opts --output-dir "$W/host-out" >/dev/null 2>&1 || { n_skip=$((n_skip + 1)); continue; }
  # shellcheck disable=SC2086
  if ! "$B/ovta" compile "$D/$name/model.onnx" --triple "$triple" --mcpu "$mcpu" -o "$W/arm.ovta" >"$W/log" 2>&1 ||
    ! "${q[@]}" "$RT" run --threads 1 "$W/arm.ovta" $opts --output-dir "$W/arm-out" >>"$W/log" 2>&1; then
    n_fail=$((n_fail + 1)); fails+=("$name: $(grep -m1 error: "$W/log")"); echo "[  FAILED  ] $name: $(grep -m1 error: "$W/log")"
    continue
  fi
  verdict=same
  for f in "$W"/host-out/*.npy; do
    g=$W/arm-out/$(basename "$f")
    cmp -s "$f" "$g" && continue
    v=$("$PY" -c "
import numpy as np, sys
a = np.load(sys.argv[1]); b = np.load(sys.argv[2])
ok = a.shape == b.shape and a.dtype == b.dtype and a.dtype.kind in 'fc' and \
  bool(np.all((np.abs(a - b) <= 1e-6 + 1e-5 * np.abs(b)) | (np.isnan(a) & np.isnan(b))))
print('close' if ok else 'DIFF')" "$g" "$f" 2>&1)
    [ "$v" = close ] && [ $verdict = same ] && verdict=close
    [ "$v" != close ] && verdict=DIFF
  done
  case $verdict in
    same) n_same=$((n_same + 1)) ;;
    close) n_close=$((n_close + 1)); echo "[  CLOSE   ] $name" ;;
    *) n_diff=$((n_diff + 1)); diffs+=("$name"); echo "[  FAILED  ] $name: outputs differ" ;;
  esac
done <"$T/list"
echo "$ARCH ($triple, $mcpu): $(wc -l <"$T/list") node tests; the host's ovta refuses $n_skip; of the rest" \
  "$n_same byte-identical, $n_close within tolerance, $n_diff differ, $n_fail fail only on ARM"
[ $((n_diff + n_fail)) -eq 0 ]
