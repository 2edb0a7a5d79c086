#!/bin/sh
# All 282 held-out MTRAG follow-ups (the ones the default seeded 150 leaves out), all five arms, the ninth pass's
# final code. The 150 of eval-2026-12-02-held-out-q resume from its records (every model answer replayed); the other
# 132 run for the first time:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-held-out-q benchmarks/results/eval-2026-12-02-held-out-all --rerun none --datasets mtrag
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-held-out-all
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,anythingllm,prose,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T) rc=$?" >> $OUT/times.log
