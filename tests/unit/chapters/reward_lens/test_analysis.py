"""The chapter's arithmetic on planted parts: the gap by layer finds the layer that holds it, the frozen split adds up
and puts the gap where it was planted, and agreement counts the RMs whose parts lie on their gap's side."""
import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.reward_lens import analysis
from rmbook.chapters.reward_lens.results import agreement_rows, split_row

WORDS = {"Agency": ["a1", "a2", "a3", "a4"], "Communion": ["c1", "c2", "c3", "c4"]}


def _parts(gap_layer: int, n_layers: int = 4, gap: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """Contributions of each (embed, L.attn, L.mlp) per word under two prompts: noise, plus ``gap`` written into
    agency words by layer ``gap_layer``'s MLP."""
    rng = np.random.default_rng(seed)
    comps = [("embed", -1)] + [(f"L{i}.{k}", i) for i in range(n_layers) for k in ("attn", "mlp")]
    rows = []
    for prompt in ("p1", "p2"):
        for cat, words in WORDS.items():
            for w in words:
                for name, layer in comps:
                    v = rng.normal(0, 0.01) + (gap if cat == "Agency" and name == f"L{gap_layer}.mlp" else 0.0)
                    rows.append({"model": "m", "kind": "explicit", "prompt": prompt, "word": w, "category": cat,
                                 "component": name, "layer": layer, "contribution": v})
    return pd.DataFrame(rows)


def test_the_gap_by_layer_finds_the_planted_layer():
    layers = analysis.gap_by_layer(_parts(gap_layer=2), n_resamples=199)
    assert list(layers["layer"]) == [-1, 0, 1, 2, 3]
    top = layers.loc[layers["gap"].idxmax()]
    assert top["layer"] == 2 and top["gap"] == pytest.approx(1.0, abs=0.05)
    assert top["ci_low"] > 0.9 and (layers.loc[layers["layer"] != 2, "gap"].abs() < 0.05).all()


@pytest.mark.parametrize("gap_layer,frozen", [(0, 1.0), (3, 0.0)])
def test_the_frozen_split_puts_the_gap_where_it_was_planted(gap_layer, frozen):
    split = analysis.frozen_split(_parts(gap_layer), n_layers=4, n_tuned=2, n_resamples=199)
    assert split["boundary"] == 2
    assert split["frozen"] + split["tuned"] == pytest.approx(split["total"])
    assert split["frozen_share"] == pytest.approx(frozen, abs=0.05)


def test_agreement_counts_the_rms_whose_parts_lie_on_their_gaps_side():
    splits = [split_row(f"rm{s}", "base", s, analysis.frozen_split(_parts(0, seed=s), 4, 2, 199)) for s in range(3)]
    splits.append(split_row("rm-late", "base", 3, analysis.frozen_split(_parts(3), 4, 2, 199)))
    (row,) = agreement_rows(analysis.agreement(splits))
    assert row.n_rms == 4 and row.n_gap_signs == 1
    assert row.n_frozen_with_gap == 3 and row.n_tuned_with_gap == 1
    assert row.share_min == pytest.approx(0.0, abs=0.05) and row.share_max == pytest.approx(1.0, abs=0.05)


def test_words_and_tuned_layers():
    assert len(analysis.words_frame(WORDS)) == 8
    with pytest.raises(ValueError, match="Agency"):
        analysis.words_frame({"Agency": ["a"]})
    assert analysis.tuned_layers("tiny-llama", 3) == 3  # not an RM rmlib trained: the default


def test_read_all_reads_each_model_once_under_one_progress_bar(tmp_path, monkeypatch):
    """Before: the page read its twelve models in two list comprehensions with no bar, so `make book` printed nothing
    for the chapter's five minutes (AMX Xeon, 2026-12-07). And each seed of a base loaded the base again (#61)."""
    from rmlib import config

    from rmlib.models import shared_base

    monkeypatch.setenv(config.PROGRESS_FILE_ENV, str(tmp_path / "progress.txt"))
    monkeypatch.setattr(analysis, "implicit_parts", lambda m, prompts, words, dtype: (m, {}))
    monkeypatch.setattr(analysis, "read_rm", lambda m, prompts, words, *, dtype, check_identity, **kw:
                        {"info": {"model": m}, "base": "lm", "split": {"boundary": 2}, "identity": None,
                         "checked_in_read": check_identity, "bases_held": shared_base._depth > 0, **kw})
    checked = []
    monkeypatch.setattr(analysis, "frozen_identity", lambda rm, base, prompt, words, boundary, random_head:
                        checked.append((rm, base, boundary, shared_base._depth > 0)) or 0.0)
    monkeypatch.setattr(analysis, "first_of_each_base", lambda ids: [ids[0]])
    lms, read = analysis.read_all(["lm"], ["rm-a", "rm-b"], ["p"], pd.DataFrame(), n_pairs=4)
    assert lms == [("lm", {})] and [(r["info"]["model"], r["identity"], r["n_pairs"]) for r in read] == \
        [("rm-a", 0.0, 4), ("rm-b", None, 4)]
    # #61: the RMs read while their bases are held; the float32 check of the first of each base after, outside
    assert all(r["bases_held"] and not r["checked_in_read"] for r in read)
    assert checked == [("rm-a", "lm", 2, False)]
    assert "reward lens: models read" in config.latest_progress(tmp_path / "progress.txt") and "3/3" in \
        config.latest_progress(tmp_path / "progress.txt")
