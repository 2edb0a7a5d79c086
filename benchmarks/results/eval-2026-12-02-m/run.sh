#!/bin/sh
# Eighth pass, final: a short reply that only accepts what the assistant offered ("Yes please" to "Shall I…?", "Oui" to "Souhaitez-vous…?"; a yes to a question asking for a fact is not one) is resolved
# to that offer with no model call (rewrite_accepted_offers=False, contract §5.6); in graph modes LightRAG extracts
# its keywords from that text. Only resolve runs again, on copies of the seventh pass's final runs (the copied
# headers gain "rewrite_accepted_offers": false, and the mix one "rewrite_picked_replies": false, by hand):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-k benchmarks/results/eval-2026-12-02-m --rerun resolve --datasets sample,mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-j-mix benchmarks/results/eval-2026-12-02-m-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-m
MIX=benchmarks/results/eval-2026-12-02-m-mix
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
