#!/bin/sh
# Seventh pass, step 5: a follow-up that points back, in a window that names exactly one candidate, leads with
# that name without the model's check (check_sole_candidate=False, contract §5.3). Only resolve runs again, on
# copies made with (the copied headers gain "check_sole_candidate": false by hand, as reuse_eval.py says):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f benchmarks/results/eval-2026-12-02-i --rerun resolve --datasets sample
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-e benchmarks/results/eval-2026-12-02-i --rerun resolve --datasets mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-f-mix benchmarks/results/eval-2026-12-02-i-mix --rerun resolve --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-i
MIX=benchmarks/results/eval-2026-12-02-i-mix
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,oracle --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms raw,resolve,oracle --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "mtrag end $(date +%T)" >> $OUT/times.log
