#!/bin/sh
# Twelfth pass, baseline on the sample in `mix` mode: the eleventh pass's final code (5b31f65, a git worktree at
# /work/base), arms raw and resolve, all 80 items (builds the sample index). Then the fused run from it
# (eval-2026-12-03-fuse-mix/run.sh).
OUT=/work/main/benchmarks/results/eval-2026-12-03b-base-mix
cd /work/base
echo "mix start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/base EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms raw,resolve --runs 2 --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
cd /work/main && .venv/bin/python benchmarks/reuse_eval.py $OUT benchmarks/results/eval-2026-12-03-fuse-mix --rerun resolve \
    --datasets sample --resolver-setting fuse_raw_search=true && benchmarks/results/eval-2026-12-03-fuse-mix/run.sh
