#!/bin/sh
# Twelfth pass, the README's results table on one machine and one code (95cf51a, a git worktree at /work/final;
# fusion off, so the library behaves as 5b31f65): all five arms on the sample (`naive`, and `mix` in
# eval-2026-12-03-final-mix) and on MTRAG's usual cut (67 short replies and a seeded 150 follow-ups). The sample's
# raw and resolve records come from this pass's baselines; the MTRAG index is the held-out baseline's (same passages):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base benchmarks/results/eval-2026-12-03-final --rerun none --datasets sample --resolver-setting fuse_raw_search=false
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base-mix benchmarks/results/eval-2026-12-03-final-mix --rerun none --datasets sample --resolver-setting fuse_raw_search=false
#   cp -r benchmarks/results/eval-2026-12-03-base/held-out/mtrag/lightrag benchmarks/results/eval-2026-12-03-final/mtrag/
# (the baselines' code predates the knob, which is off: the copied headers record fuse_raw_search=false).
# It starts once the fused `mix` run (eval-2026-12-03-fuse-mix) has ended: two evaluations at once halve each other.
OUT=/work/main/benchmarks/results/eval-2026-12-03-final
MIX=/work/main/benchmarks/results/eval-2026-12-03-final-mix
ARMS=raw,resolve,prose,anythingllm,oracle
until grep -q "mix end" /work/main/benchmarks/results/eval-2026-12-03-fuse-mix/times.log 2>/dev/null; do sleep 20; done
cd /work/main
.venv/bin/python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base $OUT --rerun none --datasets sample
.venv/bin/python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base-mix $MIX --rerun none --datasets sample
mkdir -p $OUT/mtrag && cp -r benchmarks/results/eval-2026-12-03-base/held-out/mtrag/lightrag $OUT/mtrag/
cd /work/final
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mtrag start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-follow-ups 150 --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mix start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms $ARMS --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
