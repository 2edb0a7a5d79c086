#!/bin/sh
# Thirteenth pass: the `mix` run of eval-2026-12-03-final/run.sh, stopped for time in the twelfth pass, resumed on
# the same library (e7f0fa4, a git worktree at /work/final; fusion off). The raw and resolve records are the
# twelfth pass's `mix` baseline, copied with
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03b-base-mix benchmarks/results/eval-2026-12-03-final-mix --rerun none --datasets sample --resolver-setting fuse_raw_search=false
# and the stopped run's model answers were appended to the copied llm-replay.jsonl, so only the rest reach the model.
MIX=/work/main/benchmarks/results/eval-2026-12-03-final-mix
cd /work/final
echo "mix start $(date +%T)" >> $MIX/times.log
PYTHONPATH=/work/final EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms raw,resolve,prose,anythingllm,oracle --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $MIX/times.log
