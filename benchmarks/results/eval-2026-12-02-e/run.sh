#!/bin/sh
# Seventh pass, step 1: main as it stood (07233e6) on a fresh checkout, every index built anew, arms raw, resolve
# and oracle (the rewriting arms' figures are the earlier full runs'): does a fresh run reproduce the sixth pass?
# Then the sample in mix mode over the seeded 40. Its records are the base the later steps reuse.
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-e
MIX=benchmarks/results/eval-2026-12-02-e-mix
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
