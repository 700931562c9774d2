#!/bin/bash
# How long `kiln train` takes to stop on SIGTERM (finish the step in flight, write the checkpoint, exit)
# for mlm-small with the README's settings (8192-piece tokenizer, 128 tokens, 16 per step), on the SOTU
# corpus. SIGTERM goes once 5 steps are logged (past the compile). Run from the repository root after
# `npx tsc -p tsconfig.json`:  scripts/preemption-stop-time.sh [WORK_DIR]   (data is made once there)
set -euo pipefail
kiln="node $PWD/dist/src/cli/main.js"
work=${1:-/tmp/kiln-preemption-stop}
mkdir -p "$work" && cd "$work"
if [ ! -f shards/train/prepare.json ]; then
  node -e 'import(process.argv[1]).then((m) => m.writeSotuCorpus("corpus.txt"))' "$OLDPWD/dist/src/data/sotu.js"
  $kiln tokenizer train --input corpus.txt --vocab-size 8192 --out tok/
  $kiln data prepare --tokenizer tok/ --input corpus.txt --max-length 128 --validation-fraction 0.03 --out shards/ --quiet
fi
rm -rf model
$kiln train --preset mlm-small --tokenizer tok/ --train-data shards/train --per-replica-batch-size 16 --max-steps 800 \
  --learning-rate 7e-4 --log-every 1 --output-dir model/ > out.log 2> err.log &
pid=$!
while :; do
  n=$(grep -s -c '"loss"' model/metrics.jsonl || true)
  [ "${n:-0}" -ge 5 ] && break
  sleep 0.05
done
t0=$(date +%s.%N)
kill -TERM $pid
rc=0 && wait $pid || rc=$?
t1=$(date +%s.%N)
last=$(tail -1 model/metrics.jsonl | sed -E 's/.*"time":([0-9.]+).*/\1/')
echo "exit $rc; SIGTERM to exit $(echo "$t1 - $t0" | bc) s, of which $(echo "$t1 - $last" | bc) s after the last step ended"
tr '\r' '\n' < err.log | grep '^preempted'
