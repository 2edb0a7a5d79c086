#!/bin/sh
# The sample in `mix` mode over all 80 items (earlier passes ran a seeded 40), all five arms, the ninth pass's
# final code. The 40 items of eval-2026-12-02-q-mix are resumed from its records (every model answer replayed):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-q-mix benchmarks/results/eval-2026-12-02-q-mix80 --rerun none --datasets sample
cd "$(dirname "$0")/../../.."
MIX=benchmarks/results/eval-2026-12-02-q-mix80
echo "mix start $(date +%T)" >> $MIX/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix \
    --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $MIX/times.log
