#!/bin/sh
# Eleventh pass, baseline: the tenth pass's final code (a4cb81d, a git worktree at /work/base) on a new machine
# (per-item records are not kept in the repository). Arms raw, resolve and prose on all 282 held-out follow-ups
# (builds the MTRAG index): the paired baseline of this pass's changes and the records its probes read.
OUT=/work/main/benchmarks/results/eval-2026-12-03-base
cd /work/base
echo "held-out start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/base EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-held-out --arms raw,resolve,prose --runs 2 --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
