#!/bin/sh
# The rest of run.sh, started by hand once its MTRAG step was running: run.sh's own first sample step had refused
# the copied header (it lacked fuse_raw_search), and run.sh was stopped so that it ran no further after its
# comments were corrected. Waits for the MTRAG evaluation (its process id as the argument), then the sample
# in `naive` and in `mix`.
OUT=/work/main/benchmarks/results/eval-2026-12-03-final
MIX=/work/main/benchmarks/results/eval-2026-12-03-final-mix
ARMS=raw,resolve,prose,anythingllm,oracle
while kill -0 "$1" 2>/dev/null; do sleep 20; done
echo "mtrag end $(date +%T)" >> $OUT/times.log
cd /work/final
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms $ARMS --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
