#!/bin/sh
# Ninth pass, step 3 (final): as step 2 (eval-2026-12-02-p), with a candidate inside a longer one counted as the same mention
# ("IBM" in "IBM Cloud") when the restatement must name exactly one; contract §5.9.
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-n benchmarks/results/eval-2026-12-02-q --rerun resolve --datasets sample,mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-n-mix benchmarks/results/eval-2026-12-02-q-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-q
MIX=benchmarks/results/eval-2026-12-02-q-mix
ARMS=raw,resolve,prose,anythingllm,oracle
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms $ARMS --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T)" >> $OUT/times.log
