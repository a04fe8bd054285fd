"""rmlib.models.native_rms: the gated heads share one base class, so a subclass (a researcher's variant of ArmoRM)
builds; the old per-class init called super(type(self), self).__init__ and recursed without end for any subclass."""
from __future__ import annotations

import torch
from transformers import LlamaConfig

from rmlib.models.native_rms import ArmoRM, QRMLlama


def _config(**extra) -> LlamaConfig:
    return LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                       num_key_value_heads=1, num_objectives=5, gating_hidden_dim=16, gating_n_hidden=2, **extra)


def test_a_subclass_of_a_gated_rm_builds_and_scores():
    class MyArmo(ArmoRM):
        pass

    model = MyArmo(_config())
    assert model.regression_layer.out_features == 5 and hasattr(model, "reward_transform_matrix")
    h = torch.randn(3, 32)
    assert model.reward_from_hidden(h, h).shape == (3,)


def test_each_gated_rm_has_its_own_options():
    armo, qrm = ArmoRM(_config()), QRMLlama(_config(num_quantiles=4))
    assert armo.n_quantiles == 0 and qrm.n_quantiles == 4 and qrm.regression_layer.out_features == 5 * 4
    assert armo.gating.implicit_relu and not qrm.gating.implicit_relu
