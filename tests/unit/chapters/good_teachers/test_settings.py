"""rmbook.chapters.good_teachers.settings: the two response sets (EloEverything, a policy's vocabulary) and their
π_0."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.good_teachers import analysis as tg
from rmbook.chapters.good_teachers import settings as ts


def test_elo_setting_builds_the_three_initial_policies(data_ready):
    st = ts.elo_setting("greatest", n_items=300, pi0=["uniform", "random", "top"], size=30, mass=0.9, seed=1)
    assert st.rewards.shape == (300, 10) and len(st.truth) == 300
    names = list(st.pi0s)
    assert names[0] == "uniform" and names[1] == "random 30" and names[2] == f"top 30 of {st.notes['top_rm']}"
    acc = {m: tg.pairwise_accuracy(st.rewards[m], st.truth) for m in st.rewards}
    assert st.notes["top_rm"] == max(acc, key=acc.get)
    top = st.pi0s[names[2]]
    held = np.argsort(-st.rewards[st.notes["top_rm"]].to_numpy(), kind="stable")[:30]
    assert top[held].sum() == pytest.approx(0.9 + 0.1 * 30 / 300)
    chosen = ts.elo_setting("greatest", n_items=300, pi0=["top"], size=30, mass=0.9,
                            top_rm="Ray2333/GRM-gemma2-2B-rewardmodel-ft")
    assert chosen.notes["top_rm"] == "R-Gem-2B"
    with pytest.raises(ValueError, match="no published EloEverything scores"):
        ts.elo_setting(models=["tiny-llama"])
    with pytest.raises(ValueError, match="unknown π_0 kinds"):
        ts.elo_setting(n_items=100, pi0=["uniformm"])


def _frame(ids, tokens, texts, values, special=None, kind="RM score"):
    return pd.DataFrame({"token_id": ids, "token": tokens, "text": texts, "reward": values, "logprob": values,
                         "is_special": special if special is not None else [False] * len(ids),
                         "reward_kind": kind})


def test_vocabulary_setting_matches_by_id_or_by_unique_text_and_reports_coverage():
    lp = np.log(np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05]))
    policy = _frame(range(6), ["a", "b", "c", "d", "e", "<s>"], ["A", "B", "C", "C", "E", ""], lp,
                    special=[False] * 5 + [True], kind="LM log-prob (implicit reward)")
    same_tok = _frame(range(6), ["a", "b", "c", "d", "e", "<s>"], ["A", "B", "C", "C", "E", ""], [1., 2, 3, 4, 5, 6])
    other = _frame([10, 11, 12, 13, 14, 15], ["x", "y", "z", "w", "v", "u"], ["E", "A", "B", "Q", "C", "A"],
                   [9., 8, 7, 6, 5, 4], kind="LM log-prob (implicit reward)")
    st = ts.vocabulary_setting(policy, {"rm": same_tok}, other, policy_name="pol", truth_name="truth")
    # 'C' is two policy ids and 'A' two truth ids (neither is one to one), '<s>' is special: B and E remain
    assert list(st.items) == ["B", "E"]
    assert st.rewards["rm"].tolist() == [2.0, 5.0] and st.truth.tolist() == [7.0, 9.0]
    pi0 = st.pi0s["policy (pol)"]
    np.testing.assert_allclose(pi0, np.array([0.2, 0.05]) / 0.25)
    cov = st.notes["coverage"].set_index("model")
    assert cov.loc["rm", "matched_by"] == "token id" and cov.loc["truth", "matched_by"] == "decoded text"
    assert cov.loc["(all models)", "share_pi0_mass"] == pytest.approx(0.25)
    assert cov.loc["truth", "n_tokens"] == 2 and cov.loc["rm", "n_tokens"] == 5
    with pytest.raises(ValueError, match="must be an LM"):
        ts.vocabulary_setting(same_tok, {"rm": same_tok}, other, policy_name="p", truth_name="t")
