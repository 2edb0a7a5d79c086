#!/bin/sh
# Seventh pass, step 4: the committed change (the visitor's message leads a short reply's context; options from the
# question the reply answers) on MTRAG, and every arm on this machine for the first time: the rewriting arms
# (prose, anythingllm) join raw, resolve and oracle on the MTRAG cut, the sample in naive mode and its seeded 40
# in mix mode. Copies made with
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-e benchmarks/results/eval-2026-12-02-h --rerun resolve --datasets mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f benchmarks/results/eval-2026-12-02-h --rerun "" --datasets sample
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f-mix benchmarks/results/eval-2026-12-02-h-mix --rerun "" --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-h
MIX=benchmarks/results/eval-2026-12-02-h-mix
ARMS=raw,resolve,prose,anythingllm,oracle
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms $ARMS --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
