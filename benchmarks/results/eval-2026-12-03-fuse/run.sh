#!/bin/sh
# Twelfth pass: a resolved reference's vector chunk search fused with the visitor's words by equal-weight RRF
# (--resolver-setting fuse_raw_search=true; code 6266493, a git worktree at /work/fuse). The resolve arm only, from
# the baselines (the sample: eval-2026-12-03b-base; MTRAG's held-out follow-ups: eval-2026-12-03-base):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base benchmarks/results/eval-2026-12-03-fuse \
#       --rerun resolve --datasets sample --resolver-setting fuse_raw_search=true
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-base/held-out \
#       benchmarks/results/eval-2026-12-03-fuse/held-out --rerun resolve --resolver-setting fuse_raw_search=true
OUT=/work/main/benchmarks/results/eval-2026-12-03-fuse
cd /work/fuse
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/fuse EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms raw,resolve --runs 2 --resolver-setting fuse_raw_search=true --out $OUT --no-progress \
    > $OUT/sample-naive.log 2>&1
echo "sample end $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/fuse EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --resolver-setting fuse_raw_search=true --out $OUT/held-out --no-progress \
    > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
