#!/bin/sh
# Seventh pass, step 6: a naive-mode short reply that picks an option of the assistant's question is resolved to
# that option with no model call (rewrite_picked_replies=False, contract §5.1). Only resolve runs again, on a copy
# of the final run made with (the copied headers gain "rewrite_picked_replies": false by hand):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-j benchmarks/results/eval-2026-12-02-k --rerun resolve --datasets sample,mtrag
# Graph modes are unchanged by it (their short replies need the model's keywords), so mix is not run again.
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-k
ARMS=raw,resolve,prose,anythingllm,oracle
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T)" >> $OUT/times.log
