#!/bin/sh
# Seventh pass, step 2: a short reply's context is led by the visitor's message before the assistant's question,
# and the options a reply picks among are those of the question it answers (not of a courtesy line after it).
# Only resolve runs again, on copies of eval-2026-12-02-e and eval-2026-12-02-e-mix made with
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-e benchmarks/results/eval-2026-12-02-f --rerun resolve --datasets sample
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-e-mix benchmarks/results/eval-2026-12-02-f-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-f
MIX=benchmarks/results/eval-2026-12-02-f-mix
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,oracle --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
