#!/bin/sh
# The sample in mix mode, seeded 40 items: only the resolve arm is run again (records and replay from
# eval-2026-12-02-mix). Waits for the naive MTRAG run of eval-2026-12-02-restate to end first.
cd "$(dirname "$0")/../../.."
until grep -q "mtrag end" benchmarks/results/eval-2026-12-02-restate/times.log; do sleep 20; done
OUT=benchmarks/results/eval-2026-12-02-restate-mix
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
