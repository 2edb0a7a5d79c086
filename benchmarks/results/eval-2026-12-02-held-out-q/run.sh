#!/bin/sh
# The held-out MTRAG follow-ups (eval-2026-12-02-held-out, the eighth pass's code) with the ninth pass's final code
# (contract §5.9: a restatement naming one candidate retrieves as a named check). Only resolve runs again:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-held-out benchmarks/results/eval-2026-12-02-held-out-q --rerun resolve --datasets mtrag
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-held-out-q
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out --mtrag-limit 150 \
    --arms raw,resolve,anythingllm,prose,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T) rc=$?" >> $OUT/times.log
