#!/usr/bin/env bash
# Kiln's device check: one command that proves the XLA path on a machine and measures it, section by
# section, each under its own time limit, writing OUT/gpu-report.json and OUT/gpu-report.md after every
# section (so that a run cut short still reports) and every section's output to OUT/check.log.
#
#   bash scripts/device/check.sh --out DIR [--platform gpu|cpu] [--bundle DIR] [--sections 1,2,3,4,5,6]
#
#   1 devices       the PJRT plugin discovery finds: path, PJRT API, XLA and StableHLO versions, devices, memory
#   2 device suite  test/exec/xla/device.test.js on that plugin: every primitive against the reference interpreter
#   3 equivalence   20 f32 training steps (masked and causal LM) against the CPU's recorded losses (steps.js)
#   4 throughput    Kiln against PyTorch (eager, torch.compile) and JAX, contenders taking turns (throughput.js)
#   5 generation    greedy decode tokens/s against transformers.generate, same tokens (generation.js)
#   6 main job      the quickstart (kiln quickstart) on the device: wall time and final accuracy
#
# --platform gpu (default) runs on the first GPU through the CUDA plugin of python3's jax-cuda*-pjrt wheel,
# the full shapes, in three calls of under 10 minutes each (--sections 1,2,3,5,6, then --sections 4 twice).
# KILN_CHECK_TOTAL_S and KILN_CHECK_BUDGETS=5=150,… change the time limits. --platform cpu runs the same
# sections on XLA's CPU plugin with tiny shapes (the CI run). --bundle DIR runs from a device bundle (npm run device:bundle): its Node
# (unpacked when node on PATH is missing or older than 20), its kiln/ package, peers/, data/ and reference/;
# without it, from this repository's checkout (dist/ built, the project's .venv, data made in a temp dir).
set -u
# Read whole before running (a braced block), so that editing this file never changes a run under way.
{
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
OUT="" PLATFORM=gpu BUNDLE="" SECTIONS=1,2,3,4,5,6
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="${2:?--out needs a directory}"; shift 2 ;;
    --platform) PLATFORM="${2:?--platform needs gpu or cpu}"; shift 2 ;;
    --bundle) BUNDLE="${2:?--bundle needs a directory}"; shift 2 ;;
    --sections) SECTIONS="${2:?--sections needs a list such as 1,4}"; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "check.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$OUT" ] || { echo "check.sh: --out DIR is required: where gpu-report.json and gpu-report.md go" >&2; exit 2; }
case "$PLATFORM" in gpu|cpu) ;; *) echo "check.sh: --platform must be gpu or cpu, got \"$PLATFORM\"" >&2; exit 2 ;; esac
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-check-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOG="$OUT/check.log"
: >"$LOG"
START=$(date +%s)
log() { echo "[check $(($(date +%s) - START))s] $*" | tee -a "$LOG" >&2; }

# ---- where things are -------------------------------------------------------------------------------
if [ -n "$BUNDLE" ]; then
  [ -d "$BUNDLE/kiln" ] || { echo "check.sh: --bundle $BUNDLE has no kiln/ (make one with npm run device:bundle)" >&2; exit 2; }
  BUNDLE=$(cd "$BUNDLE" && pwd)
  KILN="$BUNDLE/kiln" PEERS="$BUNDLE/peers" DATA="$BUNDLE/data" REFERENCE="$BUNDLE/reference/cpu-steps.json"
else
  KILN=$(cd "$HERE/../.." && pwd)
  PEERS="$KILN/bench/peers" DATA="$WORK/data" REFERENCE="$WORK/cpu-steps.json"
  [ -f "$KILN/dist/src/cli/main.js" ] || { echo "check.sh: $KILN/dist is not built: run npx tsc -p tsconfig.json" >&2; exit 2; }
fi

# Python: the machine's python3 on a GPU machine; the project's .venv for the CPU run where there is one.
PY=python3
if [ "$PLATFORM" = cpu ] && [ -x "$KILN/.venv/bin/python" ]; then PY="$KILN/.venv/bin/python"; fi
export KILN_PYTHON="$PY"

source "$HERE/unxz.sh"

# Node 20 or newer: the one on PATH, or the bundle's (node.xz, unpacked with xz or python3's lzma).
node_ok() { "$1" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null; }
NODE=node
if ! node_ok node; then
  if [ -n "$BUNDLE" ] && [ -f "$BUNDLE/node.xz" ]; then
    NODE="$WORK/node"
    unxz_to "$BUNDLE/node.xz" "$NODE"
    chmod +x "$NODE"
    node_ok "$NODE" || { echo "check.sh: the bundle's Node ($BUNDLE/node.xz) does not run here" >&2; NODE=""; }
  else
    NODE=""
  fi
fi
KILN_CLI="$KILN/dist/src/cli/main.js"
DEV="$KILN/dist/bench/device"

# The CPU run uses jaxlib 0.11's XLA CPU plugin where the project's .venv has it (the same XLA as the GPU
# image's jaxlib), else discovery's (the xla-cpu-pjrt wheel); KILN_PJRT_PLUGIN, when set, wins.
if [ "$PLATFORM" = cpu ] && [ -z "${KILN_PJRT_PLUGIN:-}" ]; then
  for so in "$KILN"/.venv/lib/python3*/site-packages/lammps_jax_pjrt_cpu/*.so; do
    [ -f "$so" ] && export KILN_PJRT_PLUGIN="$so" && break
  done
fi
# Run from inside a test (CI), a nested `node --test` would otherwise skip its files.
unset NODE_TEST_CONTEXT
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TF_CPP_MIN_LOG_LEVEL=2 XLA_PYTHON_CLIENT_PREALLOCATE=false

# ---- time budget ------------------------------------------------------------------------------------
# Each section gets min(its cap, what is left of the total less the floors kept for the sections after it).
if [ "$PLATFORM" = gpu ]; then
  # Measured on an H200 (docs/gpu.md, "Time budget"): 5 + 45 + 95 + 115 + 120 s for sections 1-3, 5, 6,
  # most of it XLA's compiles, and for the throughput groups 125 s (bf16 roberta-base), 290 s (f32: its
  # compile alone about 185 s) and 120 s (the causal LM): the whole check is three calls of under 10
  # minutes, --sections 1,2,3,5,6 and --sections 4 twice (KILN_CHECK_GROUPS: the two bf16 groups, then f32).
  TOTAL=570
  CAP=([1]=40 [2]=90 [3]=130 [4]=540 [5]=150 [6]=170)
  FLOOR=([1]=15 [2]=40 [3]=60 [4]=60 [5]=90 [6]=90)
else
  # The CI run: about 2.5 minutes on 2 idle cores; the limits leave room for a busy machine.
  TOTAL=600
  CAP=([1]=60 [2]=180 [3]=120 [4]=240 [5]=120 [6]=150)
  FLOOR=([1]=10 [2]=40 [3]=30 [4]=60 [5]=30 [6]=40)
fi
# KILN_CHECK_TOTAL_S replaces the total; KILN_CHECK_BUDGETS="3=150,5=120" replaces sections' caps.
TOTAL=${KILN_CHECK_TOTAL_S:-$TOTAL}
budgets=${KILN_CHECK_BUDGETS:-}
for kv in ${budgets//,/ }; do
  if ! [[ "$kv" =~ ^[1-6]=[0-9]+$ ]]; then
    echo "check.sh: KILN_CHECK_BUDGETS entries are SECTION=SECONDS (sections 1-6), got \"$kv\"" >&2
    exit 2
  fi
  CAP[${kv%%=*}]=${kv#*=}
done
budget_for() {
  local n=$1 left reserve=0 j
  left=$((TOTAL - ($(date +%s) - START)))
  for j in 1 2 3 4 5 6; do
    if [ "$j" -gt "$n" ] && [[ ",$SECTIONS," == *",$j,"* ]]; then reserve=$((reserve + FLOOR[j])); fi
  done
  local b=$((left - reserve))
  [ "$b" -gt "${CAP[$n]}" ] && b=${CAP[$n]}
  echo "$b"
}

report() { # name status seconds budget figures-file note
  "$PY" "$HERE/report.py" section --out "$OUT" --name "$1" --status "$2" --seconds "$3" --budget "$4" \
    ${5:+--figures "$5"} ${6:+--note "$6"} 2>>"$LOG" ||
    python3 "$HERE/report.py" section --out "$OUT" --name "$1" --status "$2" --seconds "$3" --budget "$4" \
      ${5:+--figures "$5"} ${6:+--note "$6"} 2>>"$LOG"
}

# Runs one section: its function under `timeout`, then its verdict. The function writes $WORK/sN.json
# (figures) and may set a note in $WORK/sN.note; its exit status decides passed/failed (124: timed-out).
section() { # number name function
  local n=$1 name="$1 $2" fn=$3 b t0 rc status note
  [[ ",$SECTIONS," == *",$n,"* ]] || return 0
  b=$(budget_for "$n")
  if [ "$b" -lt 5 ]; then
    report "$name" not-run 0 "$b" "" "not run: no time left in the ${TOTAL} s budget"
    return 0
  fi
  if [ -z "$NODE" ]; then
    report "$name" not-run 0 "$b" "" "not run: no Node 20 (none on PATH and no node.xz in a --bundle)"
    return 0
  fi
  log "section $name: budget ${b}s"
  echo "===== section $name (budget ${b}s) =====" >>"$LOG"
  t0=$(date +%s.%N)
  SECTION_END=$(($(date +%s) + b)) "$fn" "$WORK/s$n.json" "$WORK/s$n.note" 2>&1 | tee "$WORK/s$n.log" >>"$LOG"
  rc=${PIPESTATUS[0]}
  local seconds; seconds=$(python3 -c "import sys,time; print(round(time.time() - float(sys.argv[1]), 1))" "$t0")
  note=$(cat "$WORK/s$n.note" 2>/dev/null || true)
  if [ "$rc" -eq 0 ]; then status=passed
  elif [ "$rc" -eq 3 ]; then status=not-run
  elif [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) - 1 else 1)" "$seconds" "$b"; then
    status=timed-out; note="${note:+$note; }stopped at its ${b} s budget"
  else
    status=failed
    # No verdict of its own: the last lines the section printed say why.
    [ -n "$note" ] || note=$(grep -v '^\s*at \|^\s*$' "$WORK/s$n.log" | tail -n 3 | cut -c1-300 | tr '\n' ' ')
  fi
  report "$name" "$status" "$seconds" "$b" "$WORK/s$n.json" "$note"
  log "section $name: $status in ${seconds}s"
}

# Commands run under `timeout` (which stops their whole process group) with what is left of the section's budget.
bounded() {
  local left=$((SECTION_END - $(date +%s)))
  [ "$left" -ge 1 ] || return 124
  timeout --kill-after=5 "$left" "$@"
}
# The JSON lines a command printed (one per line, lines not starting with { left out) as one JSON array.
json_lines() { "$PY" -c 'import json, sys
rows = []
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        try: rows.append(json.loads(line))
        except json.JSONDecodeError: pass
json.dump(rows, open(sys.argv[2], "w"))' "$1" "$2"; }

# ---- sections ---------------------------------------------------------------------------------------
s1_devices() { # figures note
  local out="$WORK/devices.out"
  local rc
  bounded "$NODE" "$DEV/devices.js" --platform "$PLATFORM" | tee "$out"; rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || return "$rc"
  tail -n 1 "$out" >"$1"
  # The command a user runs: it must load the same plugin and list its first device.
  bounded "$NODE" "$KILN_CLI" devices | tee "$WORK/kiln-devices.out"; rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || return "$rc"
  local first; [ "$PLATFORM" = gpu ] && first="gpu:0" || first="xla-cpu:0"
  grep -q "  $first: " "$WORK/kiln-devices.out" || { echo "kiln devices did not list $first" | tee "$2"; return 1; }
}

s2_suite() {
  local out="$WORK/suite.out" rc
  (cd "$KILN" && bounded "$NODE" --test --test-reporter=tap "dist/test/exec/xla/device.test.js") | tee "$out"; rc=${PIPESTATUS[0]}
  "$PY" - "$out" "$1" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
# The summary comes at the end; a run stopped at its budget has only its ok / not ok lines.
oks = re.findall(r"^(not ok|ok) \d+ - .*?( # SKIP.*)?$", text, re.M)
counted = {"tests": len(oks), "pass": sum(1 for o, skip in oks if o == "ok" and not skip),
           "fail": sum(1 for o, _ in oks if o == "not ok"), "skipped": sum(1 for o, skip in oks if skip)}
count = lambda k: int((re.search(rf"^# {k} (\d+)", text, re.M) or [0, counted[k]])[1])
json.dump({"tests": count("tests"), "passed": count("pass"), "failed": count("fail"), "skipped": count("skipped"),
           "failures": re.findall(r"^not ok \d+ - (.*)$", text, re.M)[:20],
           "skips": re.findall(r"^ok \d+ - (.*) # SKIP(.*)$", text, re.M)[:10]}, open(sys.argv[2], "w"))
PY
  [ "$rc" -eq 0 ] || return "$rc"
  # A suite that found no plugin skips: that is not a pass.
  "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["passed"] >= 10 and r["failed"] == 0 else 1)' "$1" ||
    { echo "the device suite ran too few tests (no plugin?)" >"$2"; return 1; }
}

s3_equivalence() {
  local steps="$DEV/steps.js"
  if [ ! -f "$steps" ]; then echo "not run: steps.js missing ($steps)" >"$2"; return 3; fi
  if [ ! -f "$REFERENCE" ]; then
    # From the checkout: record the CPU reference (ONNX Runtime) first, as the bundle carries it.
    bounded "$NODE" "$steps" record --data "$DATA" --out "$REFERENCE" || return $?
  fi
  local rc
  local plugin=()
  [ "$PLATFORM" = cpu ] && [ -n "${KILN_PJRT_PLUGIN:-}" ] && plugin=(--pjrt-plugin "$KILN_PJRT_PLUGIN")
  bounded "$NODE" "$steps" compare --reference "$REFERENCE" --data "$DATA" --platform "$PLATFORM" "${plugin[@]}" |
    tee "$WORK/steps.out"
  rc=${PIPESTATUS[0]}
  json_lines "$WORK/steps.out" "$1"
  return "$rc"
}

s4_throughput() {
  local rc args=(--platform "$PLATFORM" --out "$WORK/throughput.jsonl" --python "$PY" --peers "$PEERS"
    --deadline-s "$((SECTION_END - $(date +%s) - 10))")
  if [ "$PLATFORM" = cpu ]; then
    # Tiny shapes, and no torch.compile: on 2 cores it takes over a minute and a half for even the tiny model.
    args+=(--groups mlm:mlm-tiny:32,causal-lm:llama-tiny:32 --contenders kiln,kiln-head-all,torch-eager,jax
      --batches 8 --rounds 2 --steps 3 --peak-n 512 --group-min-s 15)
  else
    args+=(--groups "${KILN_CHECK_GROUPS:-mlm:roberta-base:bf16-mixed,mlm:roberta-base:32,causal-lm:smollm-135m:bf16-mixed}"
      --batches "${KILN_CHECK_BATCHES:-64}" --rounds 3 --steps 20 --group-min-s 50)
  fi
  : >"$WORK/throughput.jsonl"
  bounded "$NODE" "$DEV/throughput.js" "${args[@]}"; rc=$?
  "$PY" - "$WORK/throughput.jsonl" "$1" "$2" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    try: rows.append(json.loads(line))
    except json.JSONDecodeError: pass
peaks = next((r for r in rows if r.get("kind") == "peaks"), None)
groups = [r for r in rows if r.get("kind") == "group"]
json.dump({"matmul_peaks": peaks, "groups": groups}, open(sys.argv[2], "w"))
cut = [f"{g['task']} {g['preset']} {g['precision']}: {g.get('skipped') or g['cut']}" for g in groups if g.get("skipped") or g.get("cut")]
bad = [f"{g['task']} {g['preset']} {g['precision']} {c['contender']} failed" for g in groups
       if not g.get("cut") for c in g.get("contenders", []) if c.get("error")]
if bad or cut:
    open(sys.argv[3], "w").write("; ".join(cut + bad))
sys.exit(1 if bad else 2 if cut else 0)
PY
  local verdict=$?
  [ "$rc" -eq 0 ] || return "$rc"
  # Groups left out or cut short for time: the section ran out of budget; a contender that failed: failed.
  [ "$verdict" -eq 1 ] && return 1
  [ "$verdict" -eq 2 ] && return 124
  return 0
}

s5_generation() {
  local rc args=(--platform "$PLATFORM" --python "$PY" --peers "$PEERS")
  [ "$PLATFORM" = cpu ] && args+=(--preset llama-tiny --vocab 512 --prompt-tokens 16 --new-tokens 16 --rounds 2)
  bounded "$NODE" "$DEV/generation.js" "${args[@]}" | tee "$WORK/generation.out"; rc=${PIPESTATUS[0]}
  json_lines "$WORK/generation.out" "$1"
  [ "$rc" -eq 0 ] || return "$rc"
  "$PY" -c 'import json, sys; rows = json.load(open(sys.argv[1])); sys.exit(0 if rows and all(r["same_tokens"] for r in rows) else 1)' "$1" ||
    { echo "Kiln and transformers.generate decoded different tokens (first_difference: batch row, position)" >"$2"; return 1; }
}

s6_main() {
  local dir="$WORK/sotu" rc args
  cp -r "$DATA/sotu" "$dir"
  # The bundle carries the corpus compressed (data/sotu/sotu.txt.xz); the quickstart makes its stages from it.
  if [ -f "$dir/sotu.txt.xz" ] && [ ! -f "$dir/sotu.txt" ]; then unxz_to "$dir/sotu.txt.xz" "$dir/sotu.txt" || return 1; fi
  # 2,000 steps, the recipe's own: its time budget would train for minutes more on a GPU.
  if [ "$PLATFORM" = gpu ]; then args=(--accelerator gpu --steps 2000)
  else args=(--accelerator cpu --executor xla --steps 30 --batch 8); fi
  [ -f "$dir/sotu.txt" ] && args+=(--corpus "$dir/sotu.txt")
  bounded "$NODE" "$KILN_CLI" quickstart --dir "$dir" "${args[@]}" | tee "$WORK/main.out"; rc=${PIPESTATUS[0]}
  "$PY" - "$WORK/main.out" "$1" "$PLATFORM" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{")]
r = json.loads(lines[-1]) if lines else {}
fig = {k: r.get(k) for k in ("task", "device", "steps", "seconds", "tokens_per_s", "compile_s", "improved")}
fig["final_eval_accuracy"] = (r.get("eval_accuracy") or [None])[-1]
fig["final_eval_loss"] = (r.get("eval_loss") or [None])[-1]
fig["eval_accuracy"] = r.get("eval_accuracy")
fill = [l.strip() for l in open(sys.argv[1]) if "  →  " in l]
fig["fill_mask"] = fill
json.dump(fig, open(sys.argv[2], "w"))
want = "gpu:" if sys.argv[3] == "gpu" else "xla-cpu:"
sys.exit(0 if str(r.get("device", "")).startswith(want) else 1)
PY
  local ok=$?
  [ "$rc" -eq 0 ] || return "$rc"
  return "$ok"
}

# ---- data for the checkout run ----------------------------------------------------------------------
# The bundle carries data/; from the checkout the same layout is made here: a SOTU corpus (the first 40
# speeches), its 2,048-piece tokenizer and 128-token shards, named as the quickstart names its stages.
make_data() {
  local s="$DATA/sotu"
  mkdir -p "$s" || return 1
  "$NODE" --input-type=module -e "import { writeSotuCorpus } from '$KILN/dist/src/data/sotu.js'; writeSotuCorpus(process.argv[1], { first: 40 })" "$s/sotu.txt" &&
    "$NODE" "$KILN_CLI" tokenizer train --input "$s/sotu.txt" --vocab-size 2048 --out "$s/tokenizer-2048" --model-max-length 128 &&
    "$NODE" "$KILN_CLI" data prepare --tokenizer "$s/tokenizer-2048" --input "$s/sotu.txt" --out "$s/shards-2048-128" \
      --max-length 128 --shard-size 1000 --validation-fraction 0.03 --seed 0 --quiet &&
    # The equivalence steps' own tokenizer and shards, made as the bundle makes them (bundle-data.mjs).
    mkdir -p "$WORK/scratch" &&
    "$NODE" --input-type=module -e "import { writeStepData } from '$KILN/scripts/device/bundle-data.mjs';
      await writeStepData(process.argv[1], process.argv[2], process.argv[3])" "$KILN" "$(dirname "$DATA")" "$WORK/scratch"
}

COMMAND="bash $0 --out $OUT --platform $PLATFORM${BUNDLE:+ --bundle $BUNDLE} --sections $SECTIONS"
"$PY" "$HERE/report.py" init --out "$OUT" --platform "$PLATFORM" --command "$COMMAND" --node "${NODE:-node}" --kiln "$KILN" 2>>"$LOG" ||
  python3 "$HERE/report.py" init --out "$OUT" --platform "$PLATFORM" --command "$COMMAND" --node "${NODE:-node}" --kiln "$KILN"
log "kiln at $KILN; node ${NODE:-missing}; python $PY; plugin ${KILN_PJRT_PLUGIN:-by discovery}"
if [ -z "$BUNDLE" ] && [ -n "$NODE" ]; then
  log "making the data (SOTU corpus, tokenizer, shards) in $DATA"
  make_data >>"$LOG" 2>&1 || log "making the data failed (sections 3 and 6 will fail): see above"
fi

section 1 devices s1_devices
section 2 "device suite" s2_suite
section 3 equivalence s3_equivalence
section 4 throughput s4_throughput
section 5 generation s5_generation
section 6 "main job" s6_main
log "done in $(($(date +%s) - START)) s: $OUT/gpu-report.md"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); bad = [s["name"] for s in r["sections"] if s["status"] not in ("passed", "not-run")]; print("not passed: " + ", ".join(bad) if bad else "every section passed (or was not run)"); sys.exit(1 if bad else 0)' "$OUT/gpu-report.json"
exit
}
