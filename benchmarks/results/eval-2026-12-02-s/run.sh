#!/bin/sh
# NOT KEPT: the switch this folder measured was removed after the measurement (quality-2026-12-02h.md, section 2,
# which gives its prompts); it ran on the uncommitted working tree of that hour.
# Tenth pass, second form: a follow-up that stands alone is restated as one standalone question (standing_prompt,
# up to 24 words) and always searched as "<message> — <question>" ; the pointer words of §5.8 as in
# eval-2026-12-02-r. The resolve arm only; raw, prose, the index and every unchanged model answer come from -r:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-r/held-out benchmarks/results/eval-2026-12-02-s/held-out --rerun resolve
#   (its header already has "restate_standing_follow_ups": true)
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-s
echo "held-out start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
