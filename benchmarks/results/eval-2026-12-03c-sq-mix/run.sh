#!/bin/sh
# Thirteenth pass: the standalone question's fusion (fuse_standalone_question=true, contract §5.10; code 7d67c2c,
# the git worktree at /work/sq) on the sample in `mix`, the resolve arm only; the other arms and every model answer
# from the resumed twelfth-pass `mix` run:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-final-mix benchmarks/results/eval-2026-12-03c-sq-mix \
#       --rerun resolve --datasets sample --resolver-setting fuse_standalone_question=true
# It starts once eval-2026-12-03c-sq/run.sh has ended.
OUT=/work/main/benchmarks/results/eval-2026-12-03c-sq-mix
until grep -q "held-out end" /work/main/benchmarks/results/eval-2026-12-03c-sq/times.log 2>/dev/null; do sleep 20; done
cd /work/sq
echo "mix start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/sq EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms raw,resolve,prose,anythingllm,oracle --runs 2 --resolver-setting fuse_standalone_question=true \
    --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
