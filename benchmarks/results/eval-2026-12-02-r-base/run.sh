#!/bin/sh
# Tenth pass, baseline: the ninth pass's final code (e1a58e8, a git worktree at /work/base) on a new machine
# (the ninth pass's per-item records are not kept in the repository). Arms raw, resolve and prose: the records
# the model-free probes of this pass read (prose's rewrites) and the paired baseline of the new rules.
# Held out: all 282 follow-ups (builds the MTRAG index).
OUT=/work/main/benchmarks/results/eval-2026-12-02-r-base
cd /work/base
echo "held-out start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/base EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-held-out --arms raw,resolve,prose --runs 2 --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
