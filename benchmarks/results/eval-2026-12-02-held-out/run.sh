#!/bin/sh
# Held-out MTRAG follow-ups: the 282 longer follow-ups that the default seeded 150 leaves out, of which a
# seeded 150 (--mtrag-limit). The reference-check rules of §5.8/§5.9 were written from reading the default
# cut's misses; no rule has seen these. All arms run; the corpus and replay file are copied from
# eval-2026-12-02-n (the final code of the eighth pass):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-n benchmarks/results/eval-2026-12-02-held-out --rerun raw,resolve,prose,anythingllm,oracle --datasets mtrag
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-held-out
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out --mtrag-limit 150 \
    --arms raw,resolve,anythingllm,prose,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T) rc=$?" >> $OUT/times.log
