#!/bin/sh
# NOT KEPT: the switch this folder measured was removed after the measurement (quality-2026-12-02h.md, section 2,
# which gives its prompts); it ran on the uncommitted working tree of that hour.
# Tenth pass: follow-ups that stand alone are restated too (restate_standing_follow_ups=True),
# and words that presuppose a named set ("other", "else", "which is") point back (§5.8). The resolve arm only;
# raw and prose records, the index and every unchanged model answer come from the baseline:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-r-base/held-out benchmarks/results/eval-2026-12-02-r/held-out --rerun resolve
#   (and the header's settings.resolver given "restate_standing_follow_ups": true by hand)
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-r
echo "held-out start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-held-out \
    --arms raw,resolve,prose --runs 2 --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
