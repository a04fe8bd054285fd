"""The heterogeneity chapter in both modes: similarity matrices, the noise floor, RSA, implicit rewards labelled."""
from __future__ import annotations

import numpy as np


def test_heterogeneity_published_and_compute(chapter, data_ready):
    c = chapter("heterogeneity")
    r, md, n_charts = c.results, c.markdown, c.n_charts
    pub, comp = r["runs"]["published"], r["runs"]["compute"]
    k = np.array([[pub["kendall"][a][b] for b in pub["kendall"]] for a in pub["kendall"]])
    assert np.allclose(k, k.T) and np.allclose(np.diag(k), 1)
    a = pub["agreement"]
    assert a["tau_min"] <= a["tau_median"] <= a["tau_max"] < 1
    tau_floor = pub["floor"][0]
    assert abs(tau_floor["shuffled mean"]) < 0.05 < a["tau_min"]  # real agreement is far above the noise floor
    assert pub["floor"][2]["shuffled mean"] > 0  # RBO of unrelated rankings is not 0
    assert len(pub["rsa"]) == 3 and all(0 < x["p"] <= 1 for x in pub["rsa"])
    # base family tested with size held fixed (partial Mantel), and every design given every other one
    best, d = max(pub["rsa"], key=lambda x: x["r"]), pub["designs"]
    pm = d["base_given_size"]
    assert (pm["design"], pm["given"], pm["n_models"]) == ("same base family", "similar size (log10 params)", 5)
    assert pm["r"] is None or (-1 <= pm["r"] <= 1 and 0 < pm["p"] <= 1)
    assert len(pub["partial_mantels"]) == 6 and "held fixed" in md
    assert pm in pub["partial_mantels"]
    assert (d["best_design"], d["best_r"]) == (best["design"], best["r"]) and d["status"] == "tested"
    assert d["verdict"] == ("match" if best["r"] > 0 and best["p"] < 0.05 else "chance" if best["r"] > 0
                            else "no positive r")
    assert ("best matches the τ matrix" in md) == (d["verdict"] == "match")
    assert 0 <= pub["mds"]["second_axis"] <= pub["mds"]["first_axis"]
    assert pub["mds"]["first_axis"] + pub["mds"]["second_axis"] <= 1 + 1e-9
    assert set(comp["reward_kinds"].values()) == {"LM log-prob (implicit reward)"}
    assert comp["rsa"] == [] and comp["designs"]["status"] == "too few models" and "RSA needs at least 4 models" in md
    assert comp["about"]["n_implicit"] == 3
    assert 3 <= comp["n_items"] <= 300
    assert np.isclose(a["rbo_gap"], a["rbo_top_median"] - a["rbo_bottom_median"])
    assert f"{a['tau_median']:.2f}" in md and "implicit" in md
    assert f"ranges from {a['tau_min']:.2f} ({a['least_alike'][0]} vs {a['least_alike'][1]})" in md  # the section, said
    assert f"a median gap of {a['rbo_gap']:+.2f}" in md
    assert n_charts >= 4
