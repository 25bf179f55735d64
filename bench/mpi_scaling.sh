#!/usr/bin/env bash
# Distributed RL over MPI: placements evaluated per minute with 1, 2, 4 and 8
# controller ranks (plus rank 0, the parameter server), oversubscribed on
# this machine, each controller with its own measurer that takes a fixed
# 200 ms per placement (tests/measure/fake_measurer, a stand-in for a real
# run). Then one run where a tenth of the measure calls crash, hang or print
# garbage. Prints one line per run and the scaling ratios.
#   bash bench/mpi_scaling.sh [BUILD_DIR] [SECONDS_PER_RUN]
set -euo pipefail
build=${1:-build}
seconds=${2:-20}
fake="$(cd "$build" && pwd)/tests/fake_measurer"
[ -x "$fake" ] || { echo "mpi_scaling.sh: $fake not built (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe)
common=(place --graph zoo:inception_v3 --cluster k80x2 --method rl --recipe paper --polish 0 --distributed)

# Placements evaluated per minute, from rank 0's summary line (reports it
# received over its wall time). --measure-no-cache: a placement the policy
# proposes again is measured again, so that every sample costs 200 ms and the
# rate is the system's, not the policy's convergence. The controllers'
# measurer logs give the count of measurements as a check.
declare -A rate
for n in 1 2 4 8; do
  rm -f "$work"/scale.jsonl*
  line=$("${mpi[@]}" -np $((n + 1)) "$build/devplace" "${common[@]}" --budget "$seconds" --measure-no-cache \
           --measure "$fake --sleep-ms 200" --measure-log "$work/scale.jsonl" 2>&1 >/dev/null | grep 'distributed over')
  rate[$n]=$(sed -E 's/.*\(([0-9]+) per minute\).*/\1/' <<<"$line")
  measured=$(cat "$work"/scale.jsonl.rank* | grep -c '"event":"measure"' || true)
  echo "controllers $n: ${rate[$n]} per minute (ideal $((n * 300))), $measured measured by the controllers; $line"
done
for n in 2 4 8; do
  awk -v n="$n" -v r1="${rate[1]}" -v rn="${rate[$n]}" \
    'BEGIN { printf "scaling %d controllers: %.2fx the placements per minute of one (%.2f N)\n", n, rn / r1, rn / r1 / n }'
done

# Fault injection: every 10th measure call of each measurer crashes, hangs
# (1 s timeout) or prints garbage, in turn; every proposal is measured
# (--measure-no-cache), so a few hundred calls are made.
log="$work/measure.jsonl"
out=$("${mpi[@]}" -np 3 "$build/devplace" "${common[@]}" --iterations 40 --measure-timeout 1 --measure-no-cache \
        --measure "$fake --sleep-ms 20 --fault-every 10 --state $work/state.\$OMPI_COMM_WORLD_RANK" \
        --measure-log "$log" --json 2>"$work/err")
requests=0 expected=0
for f in "$work"/state.*; do
  r=$(cat "$f"); requests=$((requests + r)); expected=$((expected + r / 10))
done
faults=$(cat "$log"* | grep -c '"event":"fault"' || true)
measured=$(cat "$log"* | grep -c '"event":"measure"' || true)
kinds=$(cat "$log"* | grep '"event":"fault"' | sed -E 's/.*"kind":"([a-z]+)".*/\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ',')
stderr_faults=$(grep -c 'restarting' "$work/err" || true)
step=$(sed -nE 's/.*"step_time_s": ([0-9.e-]+).*/\1/p' <<<"$out" | tail -1)
echo "faults: $requests measure calls on 3 ranks, $measured answered, $faults faults logged (expected $expected; by kind:$kinds" \
     "$stderr_faults stderr lines), answer $step s"
grep 'distributed over' "$work/err"
