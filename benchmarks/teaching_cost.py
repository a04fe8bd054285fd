"""Cost and accuracy of the good_teachers chapter's computations (published mode, full parameters).

Times each step on the 7,530 EloEverything items and 10 paper RMs (exact accuracy, the dynamics, the bootstrap),
and measures what the Heun sub-step size buys: the trajectories at substep 1.0 / 0.5 / 0.25 (the default) against
a fine reference (0.1), with the cost of each as a ratio to the default. Prints the load average first.

    .venv/bin/python benchmarks/teaching_cost.py
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from rmbook.chapters.good_teachers import analysis as tg
from rmbook.chapters.good_teachers import settings as ts
from rmbook.chapters.good_teachers import stats as teaching_stats

PARAMS = dict(beta=1.0, lr=0.002, steps=400, gain_steps=100, gain_target=0.25)
DEFAULT = tg.ascend.__kwdefaults__["substep"]


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main():
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min)")
    st, t_set = timed(lambda: ts.elo_setting("greatest", pi0=["uniform", "random", "top"], size=500, mass=0.95))
    s = st.truth
    P = np.stack(list(st.pi0s.values()))
    _, t_acc = timed(lambda: [tg.pairwise_accuracy(st.rewards[m].to_numpy(), s, P) for m in st.rewards])
    _, t_samp = timed(lambda: [tg.sampled_accuracy(st.rewards[m], s, p, 20_000) for m in st.rewards for p in P])
    runs = {}
    for c in (1.0, 0.5, 0.25, 0.1):
        (table, traj), t = timed(lambda: tg.teaching_table(st.rewards, s, st.pi0s, substep=c, **PARAMS))
        runs[c] = (table, traj, t)
    predictors = ["accuracy_uniform", "accuracy_pi0", "variance_pi0", "reward_max"]
    _, t_boot = timed(lambda: teaching_stats.rank_correlations(runs[DEFAULT][0], predictors,
                                                               ["gain_T", "speed_to_target"], n_resamples=1999))
    ref = runs[0.1][1]
    out = {"load_start": os.getloadavg()[0], "setting_s": t_set, "exact_accuracy_s": t_acc,
           "sampled_accuracy_s": t_samp, "bootstrap_s": t_boot, "substeps": {}}
    print(f"load the setting {t_set:.2f} s; exact accuracy, 10 RMs x 3 pi0 {t_acc:.2f} s "
          f"(20,000 sampled pairs each: {t_samp:.2f} s); bootstrap 1,999 x 8 correlations {t_boot:.2f} s")
    for c, (table, traj, t) in runs.items():
        err = float(np.abs(traj["gain"] - ref["gain"]).max())
        err_t = float(np.abs(table["gain_T"] - runs[0.1][0]["gain_T"]).max())
        out["substeps"][str(c)] = {"s": t, "ratio_to_default": t / runs[DEFAULT][2], "max_gain_error": err,
                                   "max_gain_T_error": err_t, "heun_substeps": int(table["substeps"].sum())}
        print(f"substep {c}: dynamics {t:.2f} s ({t / runs[DEFAULT][2]:.2f}x the default), "
              f"{int(table['substeps'].sum())} Heun sub-steps; vs substep 0.1: max |gain error| {err:.4f} along "
              f"the trajectories, {err_t:.4f} in the gain after {PARAMS['gain_steps']} steps")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    dest = Path(__file__).resolve().parent / "out" / "teaching_cost.json"
    dest.parent.mkdir(exist_ok=True)
    dest.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
