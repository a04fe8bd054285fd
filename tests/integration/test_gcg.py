"""GCG search (rmlib.engine.gcg) on tiny models: a planted optimum in both directions (and the fork's sign bug that
misses it), n = 1 against the exhaustive sweep, scores that a fresh sweep-engine call reproduces, the decode->encode
filter, no sequence scored twice, resume and cache, the CLI, and bad input."""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import torch

from rmlib.engine import score_answers, sweep
from rmlib.engine.gcg import GCGConfig, GCGError, Objective, Vocabulary, gcg
from rmlib.engine.gcg import run as run_mod
from rmlib.engine.gcg import search as search_mod
from rmlib.models import LoadOptions, ModelError
from rmlib.models.templates import TemplateError, answer_slot

PROMPT = "What is the greatest thing ever?"
SMALL = GCGConfig(topk=8, search_width=32, n_replace=1, buffer_size=2)


def _repeatable_tokens(lm, slot, n):
    """Ordinary tokens that appear nowhere in the template and whose n-fold repetition survives decode->encode."""
    vocab = Vocabulary(lm.tokenizer, lm.model.get_input_embeddings().weight.shape[0], np.arange(len(lm.tokenizer)),
                       lm.chat_template)
    used = set(slot.prefix_ids) | set(slot.suffix_ids)
    ok = [int(t) for t in vocab.ids if int(t) not in used and vocab.round_trip([(int(t),) * n])[0]
          and lm.tokenizer.decode([int(t)]).strip().isalpha()]
    return ok


def planted_rm(tiny_rm, n):
    """A tiny Llama RM whose reward is a known, increasing function of (#A - #B) in the response: only tokens A and B
    carry embedding dimension 0 (+8 and -8), attention is uniform (q = k = 0), only dimension 0 passes through the
    first layer's values and output, every other layer and MLP adds nothing, and the head reads dimension 0 of the
    final norm. So the maximum is A repeated n times and the minimum B repeated n times."""
    lm = copy.deepcopy(tiny_rm)
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    a, b = _repeatable_tokens(lm, slot, n)[:2]
    m = lm.model
    with torch.no_grad():
        emb = m.get_input_embeddings().weight
        emb[:, 0] = 0.0
        emb[a, 0], emb[b, 0] = 8.0, -8.0
        for i, layer in enumerate(m.model.layers):
            att = layer.self_attn
            att.q_proj.weight.zero_(), att.k_proj.weight.zero_(), att.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
            if i == 0:
                att.v_proj.weight.zero_()
                att.v_proj.weight[0, 0] = 1.0  # kv head 0, channel 0 <- dimension 0 (query head 0 reads kv head 0)
                att.o_proj.weight[0, 0] = 1.0  # head 0, channel 0 -> dimension 0
        m.score.weight.zero_()
        m.score.weight[0, 0] = 1.0
    return lm, a, b


@pytest.fixture(scope="module")
def planted(tiny_rms):
    return planted_rm(tiny_rms["llama"], 3)


def _random_rewards(lm, n, count=300, seed=0):
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    vocab = Vocabulary(lm.tokenizer, lm.model.get_input_embeddings().weight.shape[0], np.arange(len(lm.tokenizer)))
    rng = np.random.default_rng(seed)
    seqs = [tuple(int(i) for i in rng.choice(vocab.ids, n)) for _ in range(count)]
    return Objective(lm, slot, "max").rewards(seqs)


@pytest.mark.parametrize("direction", ["max", "min"])
def test_planted_optimum_is_found_in_both_directions(planted, direction, tmp_path):
    lm, a, b = planted
    res = gcg(lm, PROMPT, length=3, direction=direction, steps=8, restarts=2, config=SMALL, cache_root=tmp_path,
              progress=False)
    best = res.optima().iloc[0]
    want = a if direction == "max" else b
    assert list(best["ids"]) == [want] * 3
    random = _random_rewards(lm, 3)
    if direction == "max":
        assert best["reward"] > random.max() + 0.1
    else:
        assert best["reward"] < random.min() - 0.1
    # the convergence record: the best score so far never gets worse in the search's direction
    for _, r in res.frame.groupby("restart"):
        steps = np.diff(r.sort_values("step")["reward"].to_numpy()) * (1 if direction == "max" else -1)
        assert (steps >= 0).all()


def test_the_forks_sign_bug_misses_the_planted_minimum(planted, tmp_path, monkeypatch):
    """The authors' fork: the gradient always pulled the reward up, only selection minimised. Flipping the gradient
    step's sign back to +1 for direction='min' reproduces it, and the planted minimum is then never proposed."""
    lm, a, b = planted
    honest = Objective.gradient

    def fork_gradient(self, ids):
        return honest(self, ids) * self.sign  # sign * (sign * d reward) = d reward: always uphill

    monkeypatch.setattr(Objective, "gradient", fork_gradient)
    res = gcg(lm, PROMPT, length=3, direction="min", steps=8, restarts=2, config=SMALL, cache_root=tmp_path,
              progress=False)
    best = res.optima().iloc[0]
    assert b not in list(best["ids"])
    assert best["reward"] > _random_rewards(lm, 3).min()  # no better than a random search: the check above can fail


def test_one_token_gcg_equals_the_exhaustive_sweep(tiny_rms, tmp_path):
    lm = tiny_rms["gemma3"]
    n_tok = len(lm.tokenizer)
    cfg = GCGConfig(topk=n_tok, search_width=n_tok, n_replace=1, buffer_size=1)
    sw = sweep(lm, PROMPT, cache_root=tmp_path / "sweep", progress=False).frame
    vocab = Vocabulary(lm.tokenizer, lm.model.get_input_embeddings().weight.shape[0], np.arange(n_tok),
                       lm.chat_template)
    ok = [int(t) for t, keep in zip(vocab.ids, vocab.round_trip([(int(t),) for t in vocab.ids])) if keep]
    sw = sw[sw.token_id.isin(ok)]
    for direction in ("max", "min"):
        res = gcg(lm, PROMPT, length=1, direction=direction, steps=4, restarts=1, config=cfg,
                  cache_root=tmp_path / "gcg", progress=False)
        best = res.optima().iloc[0]
        want = sw.score.max() if direction == "max" else sw.score.min()
        assert best["reward"] == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("family,head", [("llama", "rm"), ("gemma2", "rm"), ("qwen2", "rm"), ("llama", "lm")])
def test_reported_score_equals_a_fresh_sweep_engine_score_and_optima_round_trip(family, head, tiny_rms, tiny_lms,
                                                                                tmp_path):
    lm = (tiny_rms if head == "rm" else tiny_lms)[family]
    res = gcg(lm, PROMPT, length=3, direction="max", steps=4, restarts=2, config=SMALL, cache_root=tmp_path,
              progress=False)
    last = res.optima()
    fresh = score_answers(lm, [PROMPT], list(last["text"]), cache_root=tmp_path / "answers", progress=False)
    value = "score" if head == "rm" else "logprob"
    np.testing.assert_allclose(fresh[value].to_numpy(), last["reward"].to_numpy(), atol=1e-4, rtol=0)
    for ids, text in zip(res.frame["ids"], res.frame["text"]):
        assert lm.tokenizer(text, add_special_tokens=False).input_ids == list(ids)
    assert res.frame["reward"].std() > 0  # the search moved


@pytest.mark.parametrize("family", ["llama", "gemma2", "gemma3", "qwen2"])
@pytest.mark.parametrize("head", ["rm", "lm"])
def test_the_differentiated_reward_is_the_scored_reward(family, head, tiny_rms, tiny_lms):
    """The gradient is taken of the number the kernels return: the one-hot path (prefix KV shared, suffix after the
    response, Gemma's embedding scale) gives the batch kernel's reward, and its gradient is not zero."""
    lm = (tiny_rms if head == "rm" else tiny_lms)[family]
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    obj = Objective(lm, slot, "min")
    ids = (40, 41, 42)
    one_hot = torch.nn.functional.one_hot(torch.tensor(ids), lm.model.get_input_embeddings().weight.shape[0]).float()
    with torch.no_grad():
        differentiable = float(obj.reward_of_one_hot(one_hot))
    assert differentiable == pytest.approx(float(obj.rewards([ids])[0]), abs=1e-4)
    grad = obj.gradient(ids)
    assert grad.shape == one_hot.shape and grad.abs().max() > 0


@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_lm_logprobs_of_answers_run_only_their_context_and_equal_a_plain_forward(family, tiny_lms, monkeypatch):
    """An LM answer's last token is scored, never context: the shared-prefix kernel runs n-1 new positions and its
    summed log-probs equal those of a plain forward of the whole conversation (fp32, 1e-4)."""
    from rmlib.engine.kernels import lm_logprobs_shared, prefix_kv

    lm = tiny_lms[family]
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    answers = [[40, 41, 42, 43], [44, 45, 46, 47], [48, 49]]
    kv, out = prefix_kv(lm, slot.prefix_ids)
    first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
    widths, honest = [], lm.model.forward

    def recording(*args, **kwargs):
        widths.append(kwargs["input_ids"].shape[1])
        return honest(*args, **kwargs)

    monkeypatch.setattr(lm.model, "forward", recording)
    got = lm_logprobs_shared(lm, kv, first, len(slot.prefix_ids), answers).numpy()
    monkeypatch.undo()
    assert widths == [3]
    for a, value in zip(answers, got):
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([list(slot.prefix_ids) + a])).logits[0].float()
        logp = torch.log_softmax(logits[len(slot.prefix_ids) - 1:-1], dim=-1)
        assert value == pytest.approx(float(logp[torch.arange(len(a)), torch.tensor(a)].sum()), abs=1e-4)


def test_round_trip_filter_drops_sequences_that_retokenise(tiny_rms):
    lm = tiny_rms["llama"]
    tok = lm.tokenizer
    vocab = Vocabulary(tok, lm.model.get_input_embeddings().weight.shape[0], np.arange(len(tok)), lm.chat_template)
    pieces = tok.convert_ids_to_tokens(list(range(len(tok))))
    split = next((tok.convert_tokens_to_ids(p[:k]), tok.convert_tokens_to_ids(p[k:]))
                 for p in pieces if len(p) > 2 and not p.startswith("<") for k in range(1, len(p))
                 if p[:k] in tok.vocab and p[k:] in tok.vocab)  # two tokens that decode to one token's text
    merged = tuple(tok(tok.decode(list(split)), add_special_tokens=False).input_ids)
    assert merged != split
    assert vocab.round_trip([split, merged]) == [False, True]
    assert vocab.round_trip([tuple(tok(" ", add_special_tokens=False).input_ids)]) == [False]  # blank
    assert not set(tok.all_special_ids) & set(vocab.ids.tolist())


def test_no_sequence_is_scored_twice(tiny_rms, tmp_path, monkeypatch):
    lm = tiny_rms["llama"]
    scored = []
    honest = Objective.rewards

    def recording(self, responses):
        scored.append([tuple(r) for r in responses])
        return honest(self, responses)

    monkeypatch.setattr(Objective, "rewards", recording)
    # 12 searchable ids and 2 positions: far fewer sequences than steps x width, so duplicates are proposed often
    res = gcg(lm, PROMPT, length=2, steps=10, restarts=1, tokens=range(40, 52), config=SMALL, cache_root=tmp_path,
              progress=False)
    flat = [s for batch in scored for s in batch]
    assert len(flat) == len(set(flat))
    assert res.frame["n_seen"].sum() > 0  # duplicates were proposed, and skipped


def test_no_gradient_is_taken_twice(tiny_rms, tmp_path, monkeypatch):
    """A step that keeps its best sequence expands it again: its top-k comes from the gradient already taken."""
    lm = tiny_rms["llama"]
    expanded = []
    honest = Objective.gradient

    def recording(self, ids):
        expanded.append(tuple(ids))
        return honest(self, ids)

    monkeypatch.setattr(Objective, "gradient", recording)
    res = gcg(lm, PROMPT, length=2, steps=10, restarts=1, tokens=range(40, 52), config=SMALL, cache_root=tmp_path,
              progress=False)
    assert len(expanded) == len(set(expanded))
    best = [tuple(ids) for ids in res.frame["ids"]]
    assert any(a == b for a, b in zip(best, best[1:]))  # a step kept its best: the old search took that gradient again
    assert len(expanded) < 10


def test_a_killed_run_resumes_to_the_same_result_and_is_then_served_from_cache(tiny_rms, tmp_path, monkeypatch):
    lm = tiny_rms["qwen2"]
    kw = dict(length=2, steps=3, restarts=3, config=SMALL, progress=False)
    whole = gcg(lm, PROMPT, cache_root=tmp_path / "whole", **kw).frame
    honest, calls = run_mod.run_restart, []

    def dies_at_the_second_restart(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return honest(*args, **kwargs)

    monkeypatch.setattr(run_mod, "run_restart", dies_at_the_second_restart)
    with pytest.raises(KeyboardInterrupt):
        gcg(lm, PROMPT, cache_root=tmp_path / "killed", **kw)
    monkeypatch.setattr(run_mod, "run_restart", honest)
    resumed = gcg(lm, PROMPT, cache_root=tmp_path / "killed", **kw)
    assert not resumed.cached and resumed.frame["restart"].nunique() == 3
    pd.testing.assert_frame_equal(resumed.frame.reset_index(drop=True), whole.reset_index(drop=True))
    again = gcg(lm, PROMPT, cache_root=tmp_path / "killed", **kw)
    assert again.cached
    pd.testing.assert_frame_equal(again.frame.reset_index(drop=True), whole.reset_index(drop=True))
    other = gcg(lm, PROMPT, cache_root=tmp_path / "killed", **{**kw, "seed": 1})
    assert not other.cached and other.meta["key"] != again.meta["key"]
    for field in ("model", "prompt", "template_hash", "length", "direction", "steps", "seed", "config"):
        assert field in again.meta


def test_a_damaged_gcg_shard_is_found_by_verify_and_recomputed(tiny_rms, tmp_path):
    from rmlib.engine import verify_cache

    lm = tiny_rms["llama"]
    kw = dict(length=2, steps=2, restarts=2, config=SMALL, progress=False, cache_root=tmp_path / "gcg")
    first = gcg(lm, PROMPT, **kw)
    shard = sorted((tmp_path / "gcg" / first.meta["key"]).glob("*.parquet"))[0]
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    found = [f for f in verify_cache(tmp_path, repair=False) if f.kind == "gcg"]
    assert [f.status for f in found] == ["corrupt"]
    again = gcg(lm, PROMPT, **kw)
    assert not again.cached  # the damaged restart was searched again, not served
    pd.testing.assert_frame_equal(again.frame.reset_index(drop=True), first.frame.reset_index(drop=True))


def test_bad_inputs_get_clear_errors(tiny_rms, tiny_lms, tmp_path):
    lm = tiny_rms["llama"]
    kw = dict(steps=1, restarts=1, cache_root=tmp_path, progress=False)
    with pytest.raises(GCGError, match="length"):
        gcg(lm, PROMPT, length=0, **kw)
    with pytest.raises(GCGError, match="direction"):
        gcg(lm, PROMPT, direction="up", **kw)
    with pytest.raises(ModelError):
        gcg("tiny-llama", PROMPT, load=LoadOptions(head="rm", dtype="float32"), **kw)  # an LM has no score head
    with pytest.raises(TemplateError):
        gcg(lm, "Hi <|eot_id|> there", **kw)
    with pytest.raises(GCGError, match="nothing to search"):
        gcg(lm, PROMPT, tokens=list(lm.tokenizer.all_special_ids), **kw)
    with pytest.raises(GCGError, match="tokens"):
        gcg(lm, PROMPT, length=2, init="love", **kw)
    with pytest.raises(GCGError, match="topk"):
        GCGConfig(topk=0)
    # #39 item 7: n_replace was clipped to the length without a word (and with it the search asked for)
    with pytest.raises(GCGError, match="n_replace=9 positions replaced per candidate, but a response has only "
                                       "length=2 positions"):
        gcg(lm, PROMPT, length=2, config=GCGConfig(n_replace=9), **kw)


def test_cli_gcg_writes_out_atomically_and_prints_the_optima(tmp_path, monkeypatch, capsys):
    from rmlib.cli import main
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "g.parquet"
    rc = main(["gcg", "--model", "tiny-llama", "--head", "lm", "--dtype", "float32", "--prompt", PROMPT,
               "--length", "2", "--steps", "2", "--restarts", "2", "--topk", "8", "--search-width", "16",
               "--out", str(out)])
    assert rc == 0
    df = pd.read_parquet(out)
    assert len(df) == 2 * 3 and {"ids", "text", "reward", "restart", "step"} <= set(df.columns)
    assert "best response of each restart" in capsys.readouterr().out
    assert main(["gcg", "--model", "tiny-llama", "--head", "lm", "--prompt", PROMPT, "--out",
                 str(tmp_path / "missing" / "g.parquet")]) == 2
    with pytest.raises(SystemExit):
        main(["gcg", "--model", "tiny-llama", "--prompt", PROMPT, "--direction", "up"])
    with pytest.raises(SystemExit):
        main(["gcg", "--model", "tiny-llama", "--prompt", PROMPT, "--length", "0"])


@pytest.mark.parametrize("direction", ["max", "min"])
def test_top_replacements_put_the_planted_token_first_and_never_propose_an_excluded_id(planted, direction):
    """GCG's candidates per position (public for the longer_answers exercise): on the planted RM the gradient through
    the one-hot response is largest for A (max) or B (min) at every position; an id left out of the vocabulary is
    never proposed, even when its gradient is the largest."""
    lm, a, b = planted
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    n_embed = lm.model.get_input_embeddings().weight.shape[0]
    ids = np.arange(len(lm.tokenizer))
    start = tuple(int(t) for t in _repeatable_tokens(lm, slot, 3)[2:5])
    want, other = (a, b) if direction == "max" else (b, a)
    objective = Objective(lm, slot, direction)
    top = search_mod.top_replacements(objective, Vocabulary(lm.tokenizer, n_embed, ids, lm.chat_template), start, 4)
    assert top.shape == (3, 4)
    assert top[:, 0].tolist() == [want] * 3
    assert other not in top
    without = Vocabulary(lm.tokenizer, n_embed, ids[ids != want], lm.chat_template)
    top = search_mod.top_replacements(objective, without, start, 4)
    assert want not in top and top.shape == (3, 4)


@pytest.mark.parametrize("head", ["rm", "lm"])
def test_a_search_is_its_own_phase_and_its_gradient_forwards_are_counted(head, tiny_rms, tiny_lms, tmp_path):
    """Before: the longer_answers chapter's GCG searches (106 s in the AMX build at a597dd6) counted as its 'rest',
    with 0 FLOPs, in the book's cost table: the gradient's forward starts from embeddings, which the FLOP hook (on
    the embedding module) never sees, and no phase held the search. A gradient at an n-token response now counts a
    forward and a backward pass over every position that ran (an RM's n + its template's suffix, an LM's n - 1),
    and the whole search is the phase 'search', which the estimate scales as compute."""
    from rmbook.book.speed import COMPUTE_PHASES
    from rmlib import costs

    lm = (tiny_rms if head == "rm" else tiny_lms)["llama"]
    embed = {id(p) for p in lm.model.get_input_embeddings().parameters()}
    params = sum(p.numel() for p in lm.model.parameters() if id(p) not in embed)
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    obj = Objective(lm, slot, "max")
    ids = (40, 41, 42)
    ran = len(ids) + len(slot.suffix_ids) if head == "rm" else len(ids) - 1
    costs.reset()
    with costs.phase("search"):
        obj.gradient(ids)
    assert costs.totals()["search"]["flops"] == 4 * params * ran
    costs.reset()
    gcg(lm, PROMPT, length=2, steps=1, restarts=1, cache_root=tmp_path, progress=False)
    assert costs.totals()["search"]["calls"] == 1 and costs.totals()["search"]["flops"] > 4 * params * ran / 3
    assert "other" not in costs.totals()
    assert "search" in costs.PHASES and "search" in COMPUTE_PHASES
