#!/bin/sh
# A refused name the message holds before its pointing word is not restated (contract §5.9): only the resolve arm
# is run again. Indexes, replay files and the other arms' records come from eval-2026-12-02-definite, and
# MTRAG's prose and anythingllm records from eval-2026-12-02-arms (the same machine).
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-antecedent
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "sample end $(date +%T)" >> $OUT/times.log
