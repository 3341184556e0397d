#!/usr/bin/env bash
# stem_fold.sh: where ResNet-18's cycles could drop by more than 5% (issue 18's goal): its stem
# conv (7x7, stride 2, pad 3, 3 -> 64 channels) uses 3 of the 16 GEMM input lanes. Three trials,
# each the layer alone with the planner's own tiling on tsim via `ovta tune --measure` (output
# checked against the C reference): the stem as the graph gives it (C 3 padded to 16); its kernel
# width folded into the channels (im2col along w on the host: C*KW = 21 -> 32 lanes, a 7x1
# kernel, stride (2, 1), the padded rows in the input); the whole window folded (C*KH*KW =
# 147 -> 160 lanes, a 1x1 conv on 112x112). Prints one line per trial: name, {"cycles": C}.
# usage: bench/stem_fold.sh [PATH/TO/ovta]   (tsim built: make all)
set -eu
OVTA=${1:-build/ovta}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
def op(name, c, h, w, kh, kw, sh, sw, pad):
    return dict(name=name, kind=0, has_bias=True, n=1, c=c, h=h, w=w, o=64, kh=kh, kw=kw, stride_h=sh,
                stride_w=sw, pad_t=pad, pad_l=pad, pad_b=pad, pad_r=pad, shift=10, n_shifts=0, clip_min=0,
                clip_max=127, shift_a=0, shift_b=0, groups=1, mult=0, up_h=0, up_w=0)
def knobs(t_oc, t_ic, t_h, t_w):  # the planner's choice for each (vta_plan_make, default config)
    return dict(t_n=1, t_oc=t_oc, t_ic=t_ic, t_h=t_h, t_w=t_w, vthreads=2)
trials = {
    'stem': (op('stem', 16, 224, 224, 7, 7, 2, 2, 3), knobs(2, 1, 8, 16)),
    'stem-fold-w': (op('stem-fold-w', 32, 230, 112, 7, 1, 2, 1, 0), knobs(4, 1, 28, 8)),
    'stem-im2col': (op('stem-im2col', 160, 112, 112, 1, 1, 1, 1, 0), knobs(4, 2, 2, 112)),
}
for name, (o, k) in trials.items():
    json.dump(dict(op=o, knobs=k), open('%s/%s.json' % (T, name), 'w'))
PY
for t in stem stem-fold-w stem-im2col; do
  echo "$t $("$OVTA" tune --measure "$T/$t.json" --backend tsim)"
done
