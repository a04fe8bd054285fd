"""rmlib.costs: time by phase, exclusive of nested phases, and the FLOPs of a model's forward passes."""
from __future__ import annotations

import time

import pytest

from rmlib import costs


@pytest.fixture(autouse=True)
def clean():
    costs.reset()
    yield
    costs.reset()


def test_time_is_exclusive_of_nested_phases():
    with costs.phase("train"):
        time.sleep(0.05)
        with costs.phase("load"):
            time.sleep(0.1)
        time.sleep(0.05)
    t = costs.totals()
    assert 0.1 <= t["load"]["seconds"] < 0.15
    assert 0.1 <= t["train"]["seconds"] < 0.15  # the 0.1 s of loading is not counted twice
    assert t["train"]["calls"] == t["load"]["calls"] == 1


def test_a_phase_decorates_a_function_and_counts_each_call():
    @costs.phase("sweep")
    def work():
        costs.add_flops(10)

    work()
    work()
    assert costs.totals()["sweep"] == {"seconds": pytest.approx(costs.totals()["sweep"]["seconds"]), "flops": 20.0,
                                       "calls": 2}
    costs.add_flops(3)
    assert costs.totals()["other"]["flops"] == 3.0


def test_a_forward_counts_two_flops_per_parameter_and_token_and_a_backward_four_per_trainable():
    import torch

    from rmlib.models.tiny import tiny_model

    model, _ = tiny_model("llama", head="rm")
    embed = {id(p) for p in model.get_input_embeddings().parameters()}
    params = sum(p.numel() for p in model.parameters() if id(p) not in embed)
    costs.count_forwards(model)
    costs.count_forwards(model)  # once per model
    ids = torch.ones(3, 7, dtype=torch.long)
    with costs.phase("evaluate"), torch.no_grad():
        model.eval()(input_ids=ids)
    assert costs.totals()["evaluate"]["flops"] == 2 * params * 21
    model.requires_grad_(False)
    model.score.requires_grad_(True)
    with costs.phase("train"):
        model.train()(input_ids=ids).logits.sum().backward()
    assert costs.totals()["train"]["flops"] == 2 * params * 21 + 4 * model.score.weight.numel() * 21
    layer = model.model.layers[0]
    skipped = sum(p.numel() for p in layer.parameters())
    with costs.phase("frozen"), costs.skipping_parameters(model, skipped), torch.no_grad():
        model.eval()(input_ids=ids)
    assert costs.totals()["frozen"]["flops"] == 2 * (params - skipped) * 21


def test_the_reward_lens_forwards_are_their_own_phase_with_their_flops():
    """Before: reward_lens's 216 s of forwards, patches and ablations counted as the chapter's 'rest' with 0 FLOPs in
    the book's cost table (AMX Xeon, 2026-12-07), and the estimate scaled them as Python work."""
    import torch

    from rmbook.book.speed import COMPUTE_PHASES
    from rmlib import lens
    from rmlib.models.tiny import tiny_model

    model, _ = tiny_model("llama", head="rm")
    embed = {id(p) for p in model.get_input_embeddings().parameters()}
    params = sum(p.numel() for p in model.parameters() if id(p) not in embed)
    costs.count_forwards(model)
    ids = torch.ones(2, 5, dtype=torch.long)
    lens.run_with(model.eval(), ids, torch.ones_like(ids))
    assert costs.totals()["lens"]["flops"] == 2 * params * 10 and costs.totals()["lens"]["calls"] == 1
    assert "lens" in costs.PHASES and "lens" in COMPUTE_PHASES
