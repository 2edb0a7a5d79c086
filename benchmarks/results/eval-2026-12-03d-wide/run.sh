#!/bin/sh
# Thirteenth pass: the standalone question over the last 8 messages (CONDENSE_WINDOW) instead of the check's two
# (code 9ba8c5d, a git worktree at /work/wide; --resolver-setting fuse_standalone_question=true). The resolve arm only,
# seeded like eval-2026-12-03c-sq:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-final benchmarks/results/eval-2026-12-03d-wide \
#       --rerun resolve --resolver-setting fuse_standalone_question=true
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-03-base/held-out \
#       benchmarks/results/eval-2026-12-03d-wide/held-out --rerun resolve --resolver-setting fuse_standalone_question=true
# eval-2026-12-03c-sq's llm-replay.jsonl files were appended to the copies, so a question whose prompt is the same
# (a conversation of two messages or fewer) is replayed. It starts once the fresh-clone CI run has ended: two heavy jobs at once halve each other.
OUT=/work/main/benchmarks/results/eval-2026-12-03d-wide
ARMS=raw,resolve,prose,anythingllm,oracle
SET=fuse_standalone_question=true
until grep -q "^rc=" /tmp/logs/ci25.log 2>/dev/null; do sleep 20; done
cd /work/wide
echo "mtrag start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/wide EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-follow-ups 150 --arms $ARMS --runs 2 --resolver-setting $SET --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "held-out start $(date +%T) rc=$?" >> $OUT/times.log
PYTHONPATH=/work/wide EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --resolver-setting $SET --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
echo "sample start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/wide EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets sample \
    --sample-mode naive --arms $ARMS --runs 2 --resolver-setting $SET --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "sample end $(date +%T) rc=$?" >> $OUT/times.log
