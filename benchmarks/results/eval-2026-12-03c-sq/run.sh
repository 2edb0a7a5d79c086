#!/bin/sh
# Thirteenth pass: a resolved reference's vector chunk search fused with one standalone question's
# (--resolver-setting fuse_standalone_question=true, contract §5.10; code 7d67c2c, a git worktree at /work/sq).
# The resolve arm only; every other arm's records and every model answer come from the twelfth pass's final run
# (the sample in `naive`, MTRAG's usual cut) and its held-out baseline:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-final benchmarks/results/eval-2026-12-03c-sq \
#       --rerun resolve --resolver-setting fuse_standalone_question=true
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-base/held-out \
#       benchmarks/results/eval-2026-12-03c-sq/held-out --rerun resolve --resolver-setting fuse_standalone_question=true
# It starts once the resumed `mix` run (eval-2026-12-03-final-mix) has ended: two evaluations at once halve each other.
OUT=/work/main/benchmarks/results/eval-2026-12-03c-sq
ARMS=raw,resolve,prose,anythingllm,oracle
SET=fuse_standalone_question=true
until grep -q "mix end" /work/main/benchmarks/results/eval-2026-12-03-final-mix/times.log 2>/dev/null; do sleep 20; done
cd /work/sq
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/sq EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms $ARMS --runs 2 --resolver-setting $SET --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mtrag start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/sq EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-follow-ups 150 --arms $ARMS --runs 2 --resolver-setting $SET --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "held-out start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/sq EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --resolver-setting $SET --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
