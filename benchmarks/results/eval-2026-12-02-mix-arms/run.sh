#!/bin/sh
# The sample in mix mode, the seeded 40 items, with all five arms: prose and anythingllm run for the first time
# on these 40; raw, resolve and oracle records, the index and the replay file come from
# eval-2026-12-02-definite-mix (python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-definite-mix
# benchmarks/results/eval-2026-12-02-mix-arms --rerun "").
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-mix-arms
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
