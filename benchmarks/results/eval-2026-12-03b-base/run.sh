#!/bin/sh
# Twelfth pass, baseline on the sample: the eleventh pass's final code (5b31f65, a git worktree at /work/base),
# arms raw and resolve, `naive`, all 80 items (builds the sample index): the paired baseline of the fusion runs.
OUT=/work/main/benchmarks/results/eval-2026-12-03b-base
cd /work/base
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/base EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms raw,resolve --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "sample end $(date +%T) rc=$?" >> $OUT/times.log
