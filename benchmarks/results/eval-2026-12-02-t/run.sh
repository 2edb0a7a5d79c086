#!/bin/sh
# Tenth pass, the pointer words alone: "other", "else", "both", "autres", "lequel", a question opening on "which is"
# point back (contract §5.8), with restate_standing_follow_ups=False (a copy of the working tree at /work/ptr with
# that default). The resolve arm only, from the baseline:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-r-base/held-out benchmarks/results/eval-2026-12-02-t/held-out --rerun resolve
#   (and the header's settings.resolver given "restate_standing_follow_ups": false by hand)
OUT=/work/main/benchmarks/results/eval-2026-12-02-t
cd /work/ptr
echo "held-out start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/ptr EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --mtrag-held-out --arms raw,resolve,prose --runs 2 --out $OUT/held-out --no-progress > $OUT/held-out.log 2>&1
echo "held-out end $(date +%T) rc=$?" >> $OUT/times.log
