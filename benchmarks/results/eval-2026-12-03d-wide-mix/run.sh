#!/bin/sh
# Thirteenth pass: the standalone question over the last 8 messages (code 9ba8c5d, the git worktree at /work/wide) on
# the sample in `mix`, the resolve arm only, seeded like eval-2026-12-03c-sq-mix, whose llm-replay.jsonl was appended
# (the sample's conversations hold two messages or fewer but for two items, so most questions are replayed):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-final-mix benchmarks/results/eval-2026-12-03d-wide-mix \
#       --rerun resolve --datasets sample --resolver-setting fuse_standalone_question=true
# It starts once eval-2026-12-03d-wide/run.sh has ended.
OUT=/work/main/benchmarks/results/eval-2026-12-03d-wide-mix
until grep -q "sample end" /work/main/benchmarks/results/eval-2026-12-03d-wide/times.log 2>/dev/null; do sleep 10; done
cd /work/wide
echo "mix start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/wide EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode mix --arms raw,resolve,prose,anythingllm,oracle --runs 2 --resolver-setting fuse_standalone_question=true \
    --out $OUT --no-progress > $OUT/sample-mix.log 2>&1
echo "mix end $(date +%T) rc=$?" >> $OUT/times.log
