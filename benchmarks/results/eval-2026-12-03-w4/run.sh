#!/bin/sh
# Eleventh pass: the resolver reads the last four messages instead of two (history_messages=4), for the
# reference check, its candidates and the restatement alike (code as the baseline's; a git worktree at /work/w4 of
# 610b67b with --resolver-setting). The resolve arm only, from the baseline:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-base/held-out \
#       benchmarks/results/eval-2026-12-03-w4/held-out --rerun resolve --resolver-setting history_messages=4
OUT=/work/main/benchmarks/results/eval-2026-12-03-w4
cd /work/w4
echo "held-out start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/w4 EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --resolver-setting history_messages=4 --out $OUT/held-out --no-progress \
    > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
