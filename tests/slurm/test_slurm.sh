#!/usr/bin/env bash
# `make test-slurm`: `ovta sweep --slurm` and `ovta tune --slurm` on a one-node Slurm cluster
# started here (tests/slurm/cluster.sh, stopped at the end), each compared with the same run on
# local workers: the same sweep table (CSV, JSON, Pareto front) and the same tuning log and file.
# The sweep: two points of the small config (DEP_QUEUE_DEPTH 4 = small itself, and 16: a config
# of its own, its Verilator model built once by the local run), the Fashion-MNIST model on tsim,
# no synthesis unless SLURM_TEST_PART=BOARD. The tune: 3 trials of one layer on tsim. Also: the
# tasks really ran under Slurm (one array task log each), a task Slurm cannot run is retried and
# then reported as a failed trial, and a job sbatch refuses is an error.
# usage: test_slurm.sh PATH/TO/ovta
set -u
OVTA=${1:?usage: test_slurm.sh PATH/TO/ovta}
cd "$(dirname "$0")/../.." || exit 1
source tests/lib.sh
C=$(mktemp -d /tmp/ovta-slurm.XXXXXX)
trap 'bash tests/slurm/cluster.sh stop "$C"; rm -rf "$T" "$C"' EXIT
M=models/fmnist
PART=${SLURM_TEST_PART:-none}

if ! bash tests/slurm/cluster.sh start "$C"; then bad "cluster" "the one-node cluster did not start (logs above)"; finish; fi
export SLURM_CONF=$C/slurm.conf
ok "one-node cluster up ($(sinfo -h -N -o '%N %c CPUs %T'))"

# ---- sweep: local, then Slurm; the same tables
echo '{"base": "small", "params": {"DEP_QUEUE_DEPTH": [4, 16]}}' > "$T/space.json"
SWEEP=("$OVTA" sweep --space "$T/space.json" --models "$M/fmnist_cnn.onnx" --images "$M/test_images.npy" --part "$PART")
run "${SWEEP[@]}" --jobs 2 -o "$T/local"
if [ $rc -eq 0 ] && [ "$(grep -c ',ok,' "$T/local/sweep.csv")" -eq 2 ]; then ok "sweep, local: 2 points measured"
else bad "sweep, local" "rc $rc"; fi
run "${SWEEP[@]}" --slurm --partition debug -o "$T/slurm"
n_logs=$(ls "$T"/slurm/slurm/ovta-sweep.*/slurm-*.log 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && grep -q '^ovta: slurm: job [0-9]*, 2 task(s)' "$T/err" && [ "$n_logs" -eq 2 ] &&
  cmp -s "$T/local/sweep.csv" "$T/slurm/sweep.csv" && cmp -s "$T/local/sweep.json" "$T/slurm/sweep.json" &&
  cmp -s "$T/local/pareto.csv" "$T/slurm/pareto.csv"
then ok "sweep through Slurm: 2 array tasks, the local table (CSV, JSON, front)"
else bad "sweep through Slurm" "rc $rc, $n_logs task logs; $(diff "$T/local/sweep.csv" "$T/slurm/sweep.csv" | head -5)"; fi

# ---- tune: local, then Slurm; the same log and tuning file
TUNE=("$OVTA" tune "$M/fmnist_cnn.onnx" --calib "$M/calib_images.npy" --backend tsim --trials 3
      --layers /features/features.4/Conv --jobs 2)
run "${TUNE[@]}" -o "$T/tl.json"
rc_l=$rc
run "${TUNE[@]}" --slurm -o "$T/ts.json"
n_logs=$(ls "$T"/ts.json.slurm/ovta-tune.*/slurm-*.log 2>/dev/null | wc -l)
if [ $rc_l -eq 0 ] && [ $rc -eq 0 ] && [ "$(wc -l < "$T/tl.json.log")" -eq 3 ] && [ "$n_logs" -eq 3 ] &&
  cmp -s "$T/tl.json.log" "$T/ts.json.log" && cmp -s "$T/tl.json" "$T/ts.json"
then ok "tune through Slurm: 3 trials as array tasks, the local log and tuning file"
else bad "tune through Slurm" "rc $rc_l/$rc, $n_logs task logs; $(diff "$T/tl.json.log" "$T/ts.json.log" | head -4)"; fi

# ---- a task that cannot run (its output file cannot be opened: Slurm fails it before it starts)
# is resubmitted --retries times, then its trial is recorded as failed with the reason
run "${TUNE[@]}" --trials 1 --slurm --retries 1 --sbatch "--output=/nonexistent/ovta/%a.log" -o "$T/tf.json"
if [ $rc -eq 0 ] && grep -q '^ovta: slurm: resubmitting 1 failed task(s) (retry 1 of 1)' "$T/err" &&
  grep -q '"error":"slurm task [0-9]*_0 failed' "$T/tf.json.log" && [ "$(wc -l < "$T/tf.json.log")" -eq 1 ]
then ok "a failing task: retried once, then its trial failed with the reason"
else bad "a failing task" "rc $rc; log: $(cat "$T/tf.json.log" 2>/dev/null)"; fi

# ---- a job sbatch refuses (no such partition): one error line, no table
run "${SWEEP[@]}" --slurm --partition nosuchpart -o "$T/refused"
if [ $rc -ne 0 ] && [ "$(grep -c 'error:' "$T/err")" -eq 1 ] &&
  grep -q '^ovta: error: slurm: sbatch failed (status 1): sbatch: error: .*partition' "$T/err" && [ ! -e "$T/refused/sweep.csv" ]
then ok "sbatch refuses: one error line with its reason, no table"; else bad "sbatch refuses" "rc $rc"; fi

finish
