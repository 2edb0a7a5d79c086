#!/bin/sh
# MTRAG after the elliptical KEEP joined the restatement (contract §5.9): only the resolve arm is run again;
# raw/oracle records from eval-2026-12-02-restate, prose/anythingllm from eval-2026-12-02-arms, both replay files.
# The sample has no elliptical follow-up, so it is not run again.
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-ellipsis
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T)" >> $OUT/times.log
