#!/bin/sh
# Eighth pass, step 3: one sentence splitter (lightrag_resolve._text.split_sentences / answered_sentence) for the
# options of the question a reply answers (contract §5.4), the context (§5.6) and the offer a reply accepts;
# meant to change nothing. Only resolve runs again, on copies of step 2's runs:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-m benchmarks/results/eval-2026-12-02-n --rerun resolve --datasets sample,mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-m-mix benchmarks/results/eval-2026-12-02-n-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-n
MIX=benchmarks/results/eval-2026-12-02-n-mix
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
