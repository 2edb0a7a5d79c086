"""The PNG chart of a report: hit rate per arm, grouped by turn class.

matplotlib is imported here only, with the Agg backend, so evaluations run
on machines without a display and the rest of the package imports without it.
"""

from __future__ import annotations

from pathlib import Path

from ._summary import Summary

__all__ = ["render_chart"]


def render_chart(summary: Summary, path: str | Path, *, title: str = "Hit rate per arm and turn class") -> Path:
    """Draw grouped bars (one group per turn class, one bar per arm) and save them to ``path``.

    Each bar is the mean hit rate; its whisker spans the lowest and highest
    single-run hit rate.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    classes = list(summary.turn_classes)
    arms = [arm for arm in summary.arms if any(row.arm == arm for row in summary.rows)]
    width = 0.8 / max(len(arms), 1)
    figure, axes = plt.subplots(figsize=(max(6.0, 1.6 * len(classes) + 2), 4.2))
    for index, arm in enumerate(arms):
        positions, heights, low_err, high_err = [], [], [], []
        for group, turn_class in enumerate(classes):
            row = summary.row(arm, turn_class)
            if row is None:
                continue
            positions.append(group + (index - (len(arms) - 1) / 2) * width)
            heights.append(row.hit_rate)
            runs = row.run_hit_rates or (row.hit_rate,)
            low_err.append(max(row.hit_rate - min(runs), 0.0))
            high_err.append(max(max(runs) - row.hit_rate, 0.0))
        axes.bar(positions, heights, width, label=arm, yerr=[low_err, high_err], capsize=2)
    axes.set_xticks(range(len(classes)), [c.replace("_", " ") for c in classes])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("hit rate")
    axes.set_title(title)
    axes.legend(ncols=min(len(arms), 5), fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.1))
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
