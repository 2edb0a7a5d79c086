#!/bin/sh
# Seventh pass, step 3: the short-reply prompts also name the sentence the reply answers ("(The reply answers: …)",
# the assistant's last question, else its last sentence). Only resolve runs again, on copies of step 2 made with
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f benchmarks/results/eval-2026-12-02-g --rerun resolve --datasets sample
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f-mix benchmarks/results/eval-2026-12-02-g-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-g
MIX=benchmarks/results/eval-2026-12-02-g-mix
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,oracle --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
