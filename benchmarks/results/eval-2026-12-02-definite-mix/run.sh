#!/bin/sh
# The sample in mix mode, a seeded 40 items, after the definite-article rule (contract §5.8): only the resolve
# arm is run again; index, replay file and the other arms' records come from eval-2026-12-02-restate-mix.
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-definite-mix
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
