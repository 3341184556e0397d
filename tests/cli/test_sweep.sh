#!/usr/bin/env bash
# Tests of `ovta sweep` (tools/ovta/cmd_sweep.c, compiler/tune/sweep.c) on the shipped
# Fashion-MNIST model, fast: the points are the small and default configs (whose Verilator
# models the build has: tsim; fsim when they are not built), no synthesis (--part none). A space
# point equal to a shipped config takes its name (and model) and is measured once; an invalid
# point is a failed row with the config check's reason; each point's cycles are those of
# `ovta profile` run alone on that config; CSV, JSON and pareto.csv agree and the front is the
# points no other point beats (computed here); the plot is written; a rerun takes the points
# from the log; `--point` measures one point alone. Space errors name the key.
# usage: test_sweep.sh PATH/TO/ovta
set -u
OVTA=${1:?usage: test_sweep.sh PATH/TO/ovta}
cd "$(dirname "$0")/../.." || exit 1
source tests/lib.sh
M=models/fmnist
BE=tsim
[ -f build/tsim/default/libovta_tsim.so ] && [ -f build/tsim/small/libovta_tsim.so ] || BE=fsim
SWEEP=("$OVTA" sweep --models "$M/fmnist_cnn.onnx" --images "$M/test_images.npy" --backend $BE --part none)

run "$OVTA" sweep --help
if [ $rc -eq 0 ] && grep -q '^usage: ovta sweep --space' "$T/out"; then ok "help"; else bad "help" "no usage"; fi
expect_error "needs a space" "no space given (--space SPACE.json)*" "$OVTA" sweep --models a.onnx -o "$T/x"
expect_error "bad backend" "--backend must be tsim or fsim, not 'cpu'*" "${SWEEP[@]}" --space x.json --backend cpu -o "$T/x"
expect_error "slurm options need --slurm" "--partition, --sbatch and --workdir need --slurm*" "${SWEEP[@]}" --space x.json --partition p -o "$T/x"
echo '{"params": {"NOT_A_KEY": [1]}}' > "$T/s1.json"
expect_error "space: unknown key" "$T/s1.json: params.NOT_A_KEY: not a config key*" "${SWEEP[@]}" --space "$T/s1.json" -o "$T/x"
echo '{"params": {"BLOCK": [12]}}' > "$T/s2.json"
expect_error "space: BLOCK not a power of two" "$T/s2.json: params.BLOCK: 12 is not a power of two*" "${SWEEP[@]}" --space "$T/s2.json" -o "$T/x"
echo '{"base": "small", "prams": {}}' > "$T/s3.json"
expect_error "space: misspelt key" "$T/s3.json: unknown key \"prams\"*" "${SWEEP[@]}" --space "$T/s3.json" -o "$T/x"
# ---- the sweep: small (as base with BLOCK 8 = LOG_BLOCK 3), an invalid point (LOG_BLOCK 9), default
echo '{"base": "small", "params": {"BLOCK": [8, 512]}, "configs": ["default"]}' > "$T/space.json"
expect_error "no such board" "--part nosuchboard: *" "${SWEEP[@]}" --space "$T/space.json" --part nosuchboard -o "$T/x"
run "${SWEEP[@]}" --space "$T/space.json" --jobs 2 -o "$T/o"
if [ $rc -eq 0 ] && grep -q "^ovta: sweep: 3 point(s), 2 to measure (local)" "$T/err"; then ok "3 points, 2 measured (the invalid one is not)"
else bad "sweep" "rc $rc"; fi
cp "$T/err" "$T/err1"
"$OVTA" profile "$M/fmnist_cnn.onnx" --images "$M/test_images.npy" --backend $BE --config small --json > "$T/p_small.json" 2>/dev/null
"$OVTA" profile "$M/fmnist_cnn.onnx" --images "$M/test_images.npy" --backend $BE --config default --json > "$T/p_default.json" 2>/dev/null
pycheck "table: cycles of ovta profile per config, invalid row, CSV = JSON, the front" "
import csv, json, sys
d = json.load(open(sys.argv[1])); rows = list(csv.DictReader(open(sys.argv[2])))
pf = list(csv.DictReader(open(sys.argv[3])))
ref = {c: (json.load(open(f))['totals']['cycles'] or 0) for c, f in (('small', sys.argv[4]), ('default', sys.argv[5]))}
P = d['points']; bad = []
if [p['config'] for p in P] != ['small', 'invalid', 'default']: bad.append('configs %r' % [p['config'] for p in P])
if [p['params'] for p in P] != ['BLOCK=8', 'BLOCK=512', 'config=default']: bad.append('params %r' % [p['params'] for p in P])
if P[1]['ok'] or 'LOG_BLOCK' not in P[1].get('error', ''): bad.append('invalid row %r' % P[1])
for p in (P[0], P[2]):
    if not p['ok'] or p['total'] != ref[p['config']] or p['cycles'] != [ref[p['config']]]: bad.append('cycles %r vs %r' % (p, ref))
if '$BE' == 'tsim' and not (ref['small'] > ref['default'] > 0): bad.append('reference cycles %r' % ref)
if len(rows) != 3: bad.append('%d csv rows' % len(rows))
for p, r in zip(P, rows):
    if r['config'] != p['config'] or r['status'] != ('ok' if p['ok'] else 'failed') or (p['ok'] and int(r['cycles']) != p['total']) \
       or r['pareto'] != ('yes' if p['pareto'] else 'no'): bad.append('csv row %r vs %r' % (r, p))
ok = [p for p in P if p['ok']]
front = [p['point'] for p in ok if not any(q['total'] < p['total'] for q in ok)]
if d['pareto'] != front or [int(r['point']) for r in pf] != front: bad.append('front %r %r, expected %r' % (d['pareto'], pf, front))
print('; '.join(bad) or 'ok')" "$T/o/sweep.json" "$T/o/sweep.csv" "$T/o/pareto.csv" "$T/p_small.json" "$T/p_default.json"
if [ -s "$T/o/sweep.png" ] || [ -s "$T/o/sweep.svg" ]; then ok "plot written"; else bad "plot" "no sweep.png/svg"; fi

# ---- a rerun takes the measured points from the log: nothing measured, the same table
cp "$T/o/sweep.csv" "$T/first.csv"
run "${SWEEP[@]}" --space "$T/space.json" -o "$T/o"
if [ $rc -eq 0 ] && grep -q "^ovta: sweep: 3 point(s), 0 to measure" "$T/err" &&
  cmp -s "$T/first.csv" "$T/o/sweep.csv" && [ "$(wc -l < "$T/o/points.jsonl")" -eq 2 ]
then ok "rerun: from the log, the same table"; else bad "rerun" "rc $rc"; fi

# ---- --point: the worker alone on a point's JSON gives the point's result
"$PY" -c "
import json, os
json.dump(dict(name='small', config=os.path.abspath('isa/configs/small.json'), backend='$BE', part='', logdir='$T',
               models=[dict(path='$M/fmnist_cnn.onnx', images='$M/test_images.npy')]), open('$T/pt.json', 'w'))
json.dump(dict(name='small', config='isa/configs/small.json', backend='cpu', part='', logdir='$T', models=[]), open('$T/bad.json', 'w'))
json.dump(dict(name='small', config='\$(shell touch $T/injected).json', backend='tsim', part='', logdir='$T',
               models=[dict(path='m', images='i')]), open('$T/inject.json', 'w'))"
run "$OVTA" sweep --point "$T/pt.json"
pycheck "--point: one JSON line with the point's cycles" "
import json, sys
r = json.loads(sys.argv[1]); ref = json.load(open(sys.argv[2]))['totals']['cycles'] or 0
print('ok' if $rc == 0 and r['ok'] and r['cycles'] == [ref] and r['total'] == ref else 'rc $rc: %r vs %r' % (r, ref))" "$out" "$T/p_small.json"
expect_error "--point: bad backend" "$T/bad.json: backend must be tsim or fsim*" "$OVTA" sweep --point "$T/bad.json"
expect_error "--point: a config path make would expand" "$T/inject.json: name, part and config must be plain*" \
  "$OVTA" sweep --point "$T/inject.json"
if [ ! -e "$T/injected" ]; then ok "--point: nothing of the path ran"; else bad "--point: injection" "make ran the path"; fi

finish
