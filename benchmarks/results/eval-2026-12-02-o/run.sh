#!/bin/sh
# Ninth pass: a restatement that names exactly one candidate the message lacks leads with it,
# "<name> — <message> — <restatement>" (contract §5.9). Only resolve runs again, on copies of the eighth pass's final runs:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-n benchmarks/results/eval-2026-12-02-o --rerun resolve --datasets sample,mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-n-mix benchmarks/results/eval-2026-12-02-o-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-o
MIX=benchmarks/results/eval-2026-12-02-o-mix
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
