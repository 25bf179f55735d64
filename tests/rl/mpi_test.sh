#!/usr/bin/env bash
# Distributed REINFORCE under mpirun, end to end (src/rl/distributed.cc):
#   1. --sync twice with the same seed: the same placement (and a result on rank 0 only); with
#      --cool-to the controllers sample sharper later on (the entropy in the log);
#   2. async through the fake measurer, every 7th call of every controller a fault: it completes,
#      each rank's faults are in its own log, the stderr summary counts the updates;
#   3. a controller killed mid-run: mpirun fails, the checkpoint rank 0 kept resumes;
#   4. pretraining over 3 ranks: repeatable, rank 0 alone prints and writes, and an update
#      sees 3 problems (a log row per update, 3 x 16 samples counted).
# Usage: mpi_test.sh DEVPLACE FAKE_MEASURER
set -euo pipefail
# Open MPI leaks its own buffers at MPI_Finalize, from components it has
# unloaded by then (LeakSanitizer cannot even name them), so the ASan build
# runs this test without leak checks; devplace's own code is leak-checked by
# the other tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
devplace=$1
fake=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe -np 3)
base=(place --graph zoo:inception_v3 --cluster k80x2 --method rl --polish 0 --warm-start fast)
common=("${base[@]}" --distributed)
fail() { echo "mpi_test: $*" >&2; exit 1; }

# 1. Synchronous: reproducible.
for run in a b; do
  "${mpi[@]}" "$devplace" "${common[@]}" --sync --iterations 4 --seed 7 --out "$work/sync_$run.json" --json \
    --training-log "$work/sync_$run.csv" >"$work/sync_$run.out" 2>"$work/sync_$run.err" \
    || { cat "$work/sync_$run.err" >&2; fail "sync run $run failed"; }
done
"${mpi[@]}" "$devplace" "${common[@]}" --sync --iterations 4 --seed 7 --cool-to 0.05 --training-log "$work/sync_cool.csv" \
  >"$work/sync_cool.out" 2>"$work/sync_cool.err" || { cat "$work/sync_cool.err" >&2; fail "sync run with --cool-to failed"; }
# The log's columns: iteration, wall_s, evaluations, mean_step_s, best_step_s, baseline_s, entropy, ...
plain_first=$(sed -n 2p "$work/sync_a.csv" | cut -d, -f3-); cool_first=$(sed -n 2p "$work/sync_cool.csv" | cut -d, -f3-)
[ "$plain_first" = "$cool_first" ] || fail "--cool-to changed the first update: '$plain_first' against '$cool_first'"
plain_last=$(tail -n 1 "$work/sync_a.csv" | cut -d, -f7); cool_last=$(tail -n 1 "$work/sync_cool.csv" | cut -d, -f7)
awk -v c="$cool_last" -v p="$plain_last" 'BEGIN { exit !(c < 0.5 * p) }' \
  || fail "--cool-to 0.05: last update's entropy $cool_last, not under half the uncooled run's $plain_last"
cmp -s "$work/sync_a.json" "$work/sync_b.json" || fail "--sync with the same seed gave two placements"
[ "$(grep -c '"step_time_s"' "$work/sync_a.out")" -ge 1 ] || fail "no JSON result: $(head -c 300 "$work/sync_a.out")"
# Rank 0 alone prints: one JSON object.
[ "$(grep -c '"method": "fast>rl"' "$work/sync_a.out")" -eq 1 ] || fail "expected one result object, got: $(cat "$work/sync_a.out")"
grep -q 'distributed over 2 controllers (sync): 4 updates' "$work/sync_a.err" || fail "no sync summary: $(cat "$work/sync_a.err")"

# 1b. --restart-after under the parameter server: the policy the controllers
# sample from after a restart is the initial one again (its entropy per
# decision within 10% of the first update's), and the log counts restarts.
"${mpi[@]}" "$devplace" place --graph zoo:inception_v3 --cluster k80x2 --method rl --warm-start none --distributed --sync \
  --iterations 8 --seed 7 --restart-after 64 --learning-rate 0.02 --training-log "$work/restart.csv" \
  >"$work/restart.out" 2>"$work/restart.err" || { cat "$work/restart.err" >&2; fail "sync run with --restart-after failed"; }
awk -F, 'NR == 2 { first = $7 } NR > 2 && restarted { after = $7; done = 1; exit }
         NR > 1 && !done && $10 > 0 && !restarted { restarted = NR }
         END { if (!restarted || !after) exit 1; d = after - first; if (d < 0) d = -d; exit !(d < 0.1 * first) }' "$work/restart.csv" \
  || fail "--restart-after 64: no restart, or the update after it not as uncertain as the first: $(cut -d, -f1,7,10 "$work/restart.csv" | tr '\n' ' ')"

# 2. Asynchronous through a faulty measurer (hang, crash, garbage in turn, every 7th request of each rank).
measure="'$fake' --sleep-ms 5 --fault-every 7 --state '$work/state.'\$OMPI_COMM_WORLD_RANK"
"${mpi[@]}" "$devplace" "${common[@]}" --iterations 12 --seed 3 --json --measure "$measure" --measure-timeout 1 \
  --measure-log "$work/faults.jsonl" >"$work/async.out" 2>"$work/async.err" || { cat "$work/async.err" >&2; fail "async run failed"; }
grep -q 'distributed over 2 controllers (async): 12 updates' "$work/async.err" || fail "no async summary: $(cat "$work/async.err")"
grep -q '"evaluator": "measurer"' "$work/async.out" || fail "not measured: $(head -c 300 "$work/async.out")"
for rank in 1 2; do
  log="$work/faults.jsonl.rank$rank"
  [ -s "$log" ] || fail "controller $rank wrote no measurer log"
  requests=$(cat "$work/state.$rank")
  faults=$(grep -c '"event": *"fault"' "$log" || true)
  [ "$faults" -ge 1 ] || fail "controller $rank: $requests requests, no fault logged"
  [ "$faults" -eq $((requests / 7)) ] || fail "controller $rank: $requests requests, $faults faults logged (expected $((requests / 7)))"
done

# 3. A controller dies: mpirun stops the job; rank 0's last checkpoint resumes.
# Controller 2's measurer command kills its devplace once rank 0 has written a checkpoint.
kill_rank2="if [ \"\$OMPI_COMM_WORLD_RANK\" = 2 ]; then (i=0; while [ ! -s '$work/rl.ckpt' ] && [ \$i -lt 900 ]; do sleep 0.1; i=\$((i + 1)); done; kill -9 \$PPID) & fi; exec '$fake' --sleep-ms 20"
set +e
"${mpi[@]}" "$devplace" "${common[@]}" --iterations 100000 --seed 5 --measure "$kill_rank2" --checkpoint "$work/rl.ckpt" \
  --checkpoint-every 1 >"$work/killed.out" 2>"$work/killed.err"
code=$?
set -e
[ "$code" -ne 0 ] || fail "the run with a killed controller exited 0"
[ -s "$work/rl.ckpt" ] || fail "no checkpoint after a controller died: $(tail -5 "$work/killed.err")"
"$devplace" "${base[@]}" --seed 5 --resume "$work/rl.ckpt" --iterations 200000 --budget 2 --json >"$work/resumed.out" \
  2>"$work/resumed.err" || { cat "$work/resumed.err" >&2; fail "resume after the dead controller failed"; }
grep -q '"step_time_s"' "$work/resumed.out" || fail "resume printed no result"

# 4. Pretraining, gradients averaged over the ranks. The same file name in two
# folders, since a policy file's archive names its folder after the file.
mkdir -p "$work/pa" "$work/pb"
for run in pa pb; do
  "${mpi[@]}" "$devplace" pretrain --corpus tiny --updates 6 --policy-hidden 16 --distributed --out "$work/$run/p.pt" \
    --training-log "$work/$run/log.csv" >"$work/$run.out" 2>"$work/$run.err" || { cat "$work/$run.err" >&2; fail "pretrain $run failed"; }
done
cmp -s "$work/pa/p.pt" "$work/pb/p.pt" || fail "distributed pretraining with the same seed gave two policies"
[ "$(grep -c 'geometric mean' "$work/pa.out")" -eq 1 ] || fail "expected one summary, got: $(cat "$work/pa.out")"
grep -q '6 updates in all, 322 evaluations' "$work/pa.out" || fail "not 3 x 16 samples per update: $(tail -1 "$work/pa.out")"
[ "$(wc -l <"$work/pa/log.csv")" -eq 7 ] || fail "expected a header and 6 rows in the log: $(cat "$work/pa/log.csv")"
echo "mpi_test: sync reproducible, restarts under the parameter server, async with faults completed, resume after a dead controller works, pretraining repeatable"
