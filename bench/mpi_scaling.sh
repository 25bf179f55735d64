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

declare -A rate
for n in 1 2 4 8; do
  line=$("${mpi[@]}" -np $((n + 1)) "$build/devplace" "${common[@]}" --budget "$seconds" \
           --measure "$fake --sleep-ms 200" 2>&1 >/dev/null | grep 'distributed over')
  rate[$n]=$(sed -E 's/.*\(([0-9]+) per minute\).*/\1/' <<<"$line")
  echo "controllers $n: $line"
done
for n in 2 4 8; do
  awk -v n="$n" -v r1="${rate[1]}" -v rn="${rate[$n]}" \
    'BEGIN { printf "scaling %d controllers: %.2fx one controller's placements per minute (%.2f N)\n", n, rn / r1, rn / r1 / n }'
done

# Fault injection: every 10th measure call of each measurer crashes, hangs
# (1 s timeout) or prints garbage, in turn.
log="$work/measure.jsonl"
out=$("${mpi[@]}" -np 3 "$build/devplace" "${common[@]}" --iterations 40 --measure-timeout 1 \
        --measure "$fake --sleep-ms 20 --fault-every 10 --state $work/state.\$OMPI_COMM_WORLD_RANK" \
        --measure-log "$log" --json 2>"$work/err")
faults=$(cat "$log"* | grep -c '"event":"fault"' || true)
measured=$(cat "$log"* | grep -c '"event":"measure"' || true)
stderr_faults=$(grep -c 'restarting' "$work/err" || true)
step=$(sed -nE 's/.*"step_time_s": ([0-9.e-]+).*/\1/p' <<<"$out" | tail -1)
echo "faults: $measured measured, $faults faults logged (stderr lines: $stderr_faults), answer $step s"
grep 'distributed over' "$work/err"
