#!/bin/sh
# Twelfth pass: the sample in `mix` mode with a resolved reference's chunk search fused with the visitor's words
# (--resolver-setting fuse_raw_search=true; code 6266493, a git worktree at /work/fuse). The resolve arm only, from
# the baseline:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base-mix \
#       benchmarks/results/eval-2026-12-03-fuse-mix --rerun resolve --datasets sample --resolver-setting fuse_raw_search=true
OUT=/work/main/benchmarks/results/eval-2026-12-03-fuse-mix
cd /work/fuse
echo "mix start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/fuse EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms raw,resolve --runs 2 --resolver-setting fuse_raw_search=true --out $OUT --no-progress \
    > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
