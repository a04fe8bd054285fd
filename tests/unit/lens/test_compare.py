"""Attribution beside patching on planted tables: a block whose attribution lies outside its patching interval by
more than the tolerance is named; one within it, or within the tolerance, is not."""
import numpy as np
import pandas as pd
import pytest

from rmlib.lens.blocks import LensError
from rmlib.lens.compare import attribution_vs_patching


def _tables(refuted: float):
    rng = np.random.default_rng(0)
    rows_a, rows_p = [], []
    truth = {"embed": 0.5, "L0.attn": 1.0, "L0.mlp": 3.0, "L1.attn": 0.2, "L1.mlp": 2.0}
    for pair in range(8):
        for c, v in truth.items():
            noise = rng.normal(0, 0.05)
            rows_a.append({"pair": pair, "component": c, "attribution": v + noise})
            rows_p.append({"pair": pair, "component": c, "effect": v + noise + (refuted if c == "L0.attn" else 0)})
    return pd.DataFrame(rows_a), pd.DataFrame(rows_p)


def test_a_refuted_attribution_is_named_and_an_agreeing_one_is_not():
    table, summary = attribution_vs_patching(*_tables(refuted=4.0))
    assert summary["disagree"] == ["L0.attn"]
    assert list(table["component"]) == ["embed", "L0.attn", "L0.mlp", "L1.attn", "L1.mlp"]
    _, agreeing = attribution_vs_patching(*_tables(refuted=0.0))
    assert agreeing["disagree"] == [] and agreeing["spearman"]["rho"] == pytest.approx(1.0)


def test_a_difference_within_the_tolerance_is_not_named():
    _, summary = attribution_vs_patching(*_tables(refuted=0.3), tolerance=0.25)  # 0.3 < 0.25 * gap (6.7)
    assert summary["disagree"] == []


def test_tables_without_common_rows_are_refused():
    a, p = _tables(0.0)
    with pytest.raises(LensError, match="share no"):
        attribution_vs_patching(a, p.assign(pair=p["pair"] + 100))
