"""The check after every training step that stops a diverged run (#24 item 5), made cheap (#61): one fused norm of
the trainable weights, and a tensor-by-tensor look only when that norm is not finite. It must still name the first
trainable weight holding a NaN or an infinity, ignore frozen weights, and not call huge but finite weights (whose
norm overflows to infinity) diverged."""
from __future__ import annotations

import pytest
import torch

from rmlib.train.trainer import _non_finite_weight


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
    m[0].requires_grad_(False)  # frozen, as last_n leaves the lower layers
    return m


def test_finite_weights_pass():
    assert _non_finite_weight(_model()) is None


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_the_first_trainable_weight_with_a_nan_or_an_infinity_is_named(value):
    m = _model()
    with torch.no_grad():
        m[2].weight[0, 3] = value
        assert _non_finite_weight(m) == "2.weight"
        m[1].bias[5] = value
        assert _non_finite_weight(m) == "1.bias"


def test_a_frozen_weight_is_not_checked():
    m = _model()
    with torch.no_grad():
        m[0].weight[0, 0] = float("nan")
    assert _non_finite_weight(m) is None


def test_huge_finite_weights_whose_norm_overflows_are_not_called_diverged():
    m = _model()
    with torch.no_grad():
        m[1].weight.fill_(3e38)  # finite in float32; its squares are not
    assert not torch.isfinite(torch.nn.utils.get_total_norm([m[1].weight]))
    assert _non_finite_weight(m) is None
