#!/usr/bin/env bash
# Sample efficiency: the best step time each searching method finds at a
# range of evaluation budgets, on the rows of the paper suite (RNNLM, NMT and
# Inception-V3 on k80x2 and k80x4, as `devplace compare --suite paper`).
# Each run is `devplace place --method M --evaluations N --seed $SEED --json`;
# the script prints one table per row (a line per method, a column per
# budget) with the step time of the placement found and, after a slash, the
# evaluations the run actually made, so a run that overspent its budget
# shows. The expert and single-GPU step times are printed for reference.
# Raw results go to the CSV $OUT (default sample_efficiency.csv), written to
# a temporary file and renamed at the end.
#   bash bench/sample_efficiency.sh BUILD_DIR [EVALS_LIST] [METHODS] [ROWS]
# EVALS_LIST default "250 1000 4000 16000"; METHODS default "random-search
# local-search rl hierarchical"; a method may also be pretrained (the
# shipped policy, or $POLICY, placing at once) or pretrained>rl (rl
# fine-tuned from it, --init); ROWS default every row: "rnnlm-2 rnnlm-4
# nmt-2 nmt-4 inception-2 inception-4" (model-GPUs). Each may also come from
# the environment variable of that name. SEED (default 1) is every run's seed.
set -euo pipefail
usage="usage: bash bench/sample_efficiency.sh BUILD_DIR [EVALS_LIST] [METHODS] [ROWS]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
build=$1
evals_list=${2:-${EVALS_LIST:-250 1000 4000 16000}}
methods=${3:-${METHODS:-random-search local-search rl hierarchical}}
rows=${4:-${ROWS:-rnnlm-2 rnnlm-4 nmt-2 nmt-4 inception-2 inception-4}}
seed=${SEED:-1}
out=${OUT:-sample_efficiency.csv}
devplace="$build/devplace"
[ -x "$devplace" ] || { echo "sample_efficiency.sh: $devplace not built (cmake --build $build --target devplace)" >&2; exit 2; }
py=/usr/bin/python3  # standard library only (json); the python3 first on PATH is another interpreter
for n in $evals_list; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "sample_efficiency.sh: EVALS_LIST: expected positive integers, got '$n'" >&2; exit 2; }
done

# A row name to its graph and cluster (the rows of kPaperSuite in src/cli/compare.cc).
row_problem() {
  case $1 in
    rnnlm-2) echo "zoo:rnnlm k80x2" ;;
    rnnlm-4) echo "zoo:rnnlm k80x4" ;;
    nmt-2) echo "zoo:nmt k80x2" ;;
    nmt-4) echo "zoo:nmt k80x4" ;;
    inception-2) echo "zoo:inception_v3 k80x2" ;;
    inception-4) echo "zoo:inception_v3 k80x4" ;;
    *) return 1 ;;
  esac
}
for row in $rows; do
  row_problem "$row" >/dev/null ||
    { echo "sample_efficiency.sh: ROWS: unknown row '$row' (known: rnnlm-2 rnnlm-4 nmt-2 nmt-4 inception-2 inception-4)" >&2; exit 2; }
done

work=$(mktemp -d)
csv=$(mktemp "$out.tmp.XXXXXX")  # beside $out, so that the rename at the end is atomic
trap 'rm -rf "$work" "$csv"' EXIT
echo "row,graph,cluster,method,budget_evaluations,seed,step_time_s,oom,evaluations,search_time_s,wall_s" >"$csv"

# Fields of a `place --json` answer, tab-separated, none empty: step time in
# ms, oom (true/false), evaluations made, search seconds, step time in s.
fields() {
  "$py" -c '
import json, sys
j = json.load(sys.stdin)
print("%.2f\t%s\t%d\t%.3f\t%r" % (j["step_time_s"] * 1e3, "true" if j["oom"] else "false", j["evaluations"],
      j["search_time_s"], j["step_time_s"]))'
}

# Runs one placement; sets step_ms, oom, used, search_s, step_s, oom_flag, wall_s.
place() {
  local graph=$1 cluster=$2 method=$3 budget=$4
  local policy=${POLICY:-pretrained}
  local args=(place --graph "$graph" --cluster "$cluster" --seed "$seed" --json)
  case $method in
    "pretrained>rl") args+=(--method rl --init "$policy") ;;
    pretrained) args+=(--method pretrained --policy "$policy") ;;
    *) args+=(--method "$method") ;;
  esac
  [ "$budget" = - ] || args+=(--evaluations "$budget")
  local start end
  start=$(date +%s.%N)
  if ! "$devplace" "${args[@]}" >"$work/out.json" 2>"$work/err"; then
    echo "sample_efficiency.sh: failed: devplace ${args[*]}" >&2
    cat "$work/err" >&2
    return 1
  fi
  end=$(date +%s.%N)
  wall_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  local line
  line=$(fields <"$work/out.json") || { echo "sample_efficiency.sh: unreadable JSON from devplace ${args[*]}" >&2; return 1; }
  IFS=$'\t' read -r step_ms oom_flag used search_s step_s <<<"$line"
  oom=""
  [ "$oom_flag" = false ] || oom=OOM
}

failures=0
for row in $rows; do
  read -r graph cluster < <(row_problem "$row")
  echo "== $row: $graph on $cluster (seed $seed)"
  declare -A cell=()
  for ref in expert single-gpu; do
    place "$graph" "$cluster" "$ref" - || { failures=$((failures + 1)); continue; }
    echo "   $ref: $step_ms ms${oom:+ $oom} (${wall_s} s)"
    echo "$row,$graph,$cluster,$ref,,$seed,$step_s,$oom_flag,$used,$search_s,$wall_s" >>"$csv"
  done
  for method in $methods; do
    for n in $evals_list; do
      if place "$graph" "$cluster" "$method" "$n"; then
        over=""
        [ "$used" -le "$n" ] || over=" OVER BUDGET"
        cell[$method/$n]="$step_ms${oom:+ $oom}/$used${over:+!}"
        echo "   $method, $n evaluations: $step_ms ms${oom:+ $oom}, $used evaluations$over, search ${search_s} s, wall ${wall_s} s"
        echo "$row,$graph,$cluster,$method,$n,$seed,$step_s,$oom_flag,$used,$search_s,$wall_s" >>"$csv"
      else
        cell[$method/$n]="failed"
        failures=$((failures + 1))
      fi
    done
  done
  # The table: best step time in ms / evaluations made, per method and budget.
  width=16
  for method in $methods; do [ ${#method} -lt $((width - 2)) ] || width=$((${#method} + 2)); done
  printf "\n%-${width}s" "ms / evals"
  for n in $evals_list; do printf "%18s" "$n"; done
  printf "\n"
  for method in $methods; do
    printf "%-${width}s" "$method"
    for n in $evals_list; do printf "%18s" "${cell[$method/$n]}"; done
    printf "\n"
  done
  printf "(ms: the step time of the placement found; evals: evaluations it made; !: more than its budget)\n\n"
  unset cell
done
mv "$csv" "$out"
echo "raw results: $out"
[ "$failures" -eq 0 ] || { echo "sample_efficiency.sh: $failures runs failed (above)" >&2; exit 1; }
