"""The page's summary counts what its RMs show: gaps beyond 0, which part carries each, rho's range, refuted blocks
(the embedding aside: patching it swaps the word)."""
import pytest

from rmbook.chapters.reward_lens.results import PatchCheck, RMSplit, summary


def _split(rm, total, lo, hi, frozen, f_lo, f_hi, tuned, t_lo, t_hi, identity=None):
    return RMSplit(rm=rm, base="b", seed=0, boundary=2, n_tuned=2, total=total, total_low=lo, total_high=hi,
                   frozen=frozen, frozen_low=f_lo, frozen_high=f_hi, tuned=tuned, tuned_low=t_lo, tuned_high=t_hi,
                   frozen_share=frozen / total, frozen_identity=identity)


def _check(rm, rho, lo, hi, disagree):
    return PatchCheck(rm=rm, n_pairs=8, gap=0.1, rho=rho, rho_low=lo, rho_high=hi, disagree=disagree, n_blocks=9)


def test_the_summary_counts_what_the_rms_show():
    splits = [_split("a", 0.2, 0.1, 0.3, 0.02, -0.01, 0.05, 0.18, 0.05, 0.3, identity=0.0),
              _split("b", -0.1, -0.2, -0.01, -0.08, -0.1, -0.02, -0.02, -0.1, 0.05),
              _split("c", 0.01, -0.1, 0.1, 0.0, -0.05, 0.05, 0.01, -0.05, 0.06)]
    checks = [_check("a", 0.1, -0.1, 0.3, ["embed", "L1.mlp"]), _check("b", 0.4, 0.1, 0.6, []),
              _check("c", -0.2, -0.5, 0.1, ["L0.attn", "L1.attn", "L1.mlp"])]
    s = summary(splits, checks)
    assert (s.n_rms, s.n_gap_beyond_zero, s.n_tuned_with_gap, s.n_frozen_with_gap) == (3, 2, 1, 1)
    assert (s.rho_min, s.rho_max, s.n_rho_above_zero) == (pytest.approx(-0.2), pytest.approx(0.4), 1)
    assert (s.disagree_min, s.disagree_max, s.n_identity, s.identity_max) == (0, 3, 1, 0.0)
    assert summary([], []) is None
