"""Score multi-token answers (lexicon words, EloEverything items) under many prompts, id-exactly.

RMs: the reward of the whole conversation. LMs: the summed log-prob of the answer's tokens given the same templated
prefix an RM sees (an implicit reward). Cached and verified like sweeps, one shard per prompt.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from rmlib import costs
from rmlib.config import progress_bar
from rmlib.engine.checks import SweepError, auto_batch_size, check_batch_size, check_finite, check_length, resolve_model
from rmlib.engine.kernels import (lm_logprobs_shared, prefix_kv, right_pad, rm_scores_full, rm_scores_shared,
                                  supports_shared_prefix)
from rmlib.engine.prefix_tree import opening_tree, prompt_heads
from rmlib.engine.store import cache_parent, dated_fields, finish, model_settings, open_store, run_fields
from rmlib.models.templates import answer_slot, check_answer, check_prompt
from rmlib.storage import sweep_key
from rmlib.trained import is_trained_folder
from rmlib.errors import as_list

__all__ = ["score_answers"]


@costs.phase("answers")
def score_answers(model, prompts, answers, *, batch_size: int | None = None, cache: bool = True,
                  progress: bool = True, cache_root=None, load=None) -> pd.DataFrame:
    """Score multi-token answers (e.g. lexicon words) under many prompts, id-exactly.

    RMs: the reward of the whole conversation. LMs: the summed log-prob of the
    answer's tokens given the same templated prefix an RM sees (an implicit reward).
    One shard per prompt, so an interrupted run resumes prompt by prompt. Cached and verified like `sweep`
    (the same key policy; `cache=False` recomputes and replaces atomically); attrs["rmlib"] describes the data.
    `model` is a LoadedModel or an id (cached per process, loaded with `load`). The answers of an RM that rmlib
    trained are cached inside its own folder by default, so retraining it under the same name replaces them; a
    user's ``local:/path`` folder is left as it was (its answers go to the cache, keyed by its content).
    """
    check_batch_size(batch_size)
    lm = resolve_model(model, load)
    prompts = as_list(prompts, "prompts", "['What is the greatest thing ever?']")
    answers = as_list(answers, "answers", "['love']")
    answer_ids, slots = _checked_inputs(lm, prompts, answers)
    longest = max(len(a) for a in answer_ids)
    shared = supports_shared_prefix(lm, max(len(s.prefix_ids) + len(s.suffix_ids) for s in slots.values()) + longest)
    key, meta = _key_and_meta(lm, prompts, answers, slots, shared, batch_size)
    if cache_root is None and lm.spec.source == "local" and is_trained_folder(lm.spec.path):
        cache_root = Path(lm.spec.path) / "answers"  # an rmlib-trained RM's; a user's folder gets nothing written
    target = cache_parent(cache_root, "answers") / key
    store, df = open_store(target.parent, key, meta, cache)
    if df is not None:
        return df
    try:
        bar = progress_bar(total=len(prompts) * len(answers), progress=progress, unit="ans",
                   desc=f"{lm.head} answers {lm.spec.nickname or lm.spec.id}")
        pending = [pi for pi in range(len(prompts)) if not store.valid_shard(pi, len(answers))]
        bar.update((len(prompts) - len(pending)) * len(answers))
        for pi, kv, first in _pending_heads(lm, prompts, slots, pending, shared):
            prompt = prompts[pi]
            slot = slots[prompt]
            if lm.head == "lm":
                values = _lm_answer_logprobs(lm, slot, answer_ids, batch_size, shared, bar, kv, first)
            else:
                values = _rm_answer_scores(lm, slot, answer_ids, batch_size, shared, bar, kv, first)
            df = pd.DataFrame({"model": lm.spec.id, "prompt": prompt, "answer": answers,
                               "n_tokens": [len(a) for a in answer_ids], **values})
            check_finite(df, list(values), f"{lm.spec.id} under the prompt {prompt!r}")
            store.write_shard(pi, df)
        bar.close()
        return finish(store, target, len(prompts), len(prompts) * len(answers))
    finally:
        if store.root != target:
            shutil.rmtree(store.root, ignore_errors=True)


def _checked_inputs(lm, prompts: list, answers: list) -> tuple[list[list[int]], dict]:
    """Each answer's token ids and each prompt's answer slot, after refusing what cannot be scored: no prompt or
    answer, an empty answer, one that does not survive tokenisation, a conversation longer than the model's."""
    if not prompts or not answers:
        raise SweepError("score_answers needs at least one prompt and one answer")
    for p in prompts:
        check_prompt(lm.tokenizer, p)
    if any(not isinstance(a, str) or not a.strip() for a in answers):
        raise SweepError("answers must be non-empty strings")
    for a in answers:
        check_answer(lm.tokenizer, a)
    answer_ids = [lm.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
    slots = {p: answer_slot(lm.tokenizer, p, lm.chat_template) for p in prompts}
    longest = max(range(len(answers)), key=lambda i: len(answer_ids[i]))
    for p, slot in slots.items():
        n = len(slot.prefix_ids) + len(answer_ids[longest]) + (len(slot.suffix_ids) if lm.head == "rm" else 0)
        check_length(lm, n, f"the answer {answers[longest][:40]!r} under the prompt {p[:40]!r}")
    return answer_ids, slots


def _key_and_meta(lm, prompts, answers, slots, shared: bool, batch_size) -> tuple[str, dict]:
    """The cache key of a set of answers (the same policy as a sweep's) and the ``meta`` that describes it."""
    key_params = {"model": lm.spec.id, "revision": lm.revision, "kind": lm.head, "dtype": str(lm.dtype),
                  "prompts": prompts, "answers": answers, "template": slots[prompts[0]].template_hash,
                  "method": "shared_prefix" if shared else "full", "untrained_head": lm.untrained_head,
                  "seed": lm.seed if lm.untrained_head else None, **model_settings(lm),
                  **dated_fields(lm.chat_template, [slots[p] for p in prompts])}
    key = sweep_key(key_params)
    meta = {"key": key, "model": lm.spec.id, "revision": lm.revision, "kind": lm.head, "mode": "id_exact",
            "method": key_params["method"], "dtype": str(lm.dtype).removeprefix("torch."),
            "template_hash": key_params["template"], "n_prompts": len(prompts), "n_answers": len(answers),
            "untrained_head": lm.untrained_head, "seed": key_params["seed"], **run_fields(lm, batch_size)}
    return key, meta


def _pending_heads(lm, prompts, slots, pending: list[int], shared: bool):
    """``(prompt index, shared key/values, first own token)`` for each pending prompt: with the shared prefix, the
    openings the prompts share run once and many prompts go in one forward; otherwise each prompt runs whole."""
    if not shared:
        return ((pi, None, None) for pi in pending)
    # a gated head (ArmoRM, QRM) reads a hidden state inside each prompt: no opening shared, so every prompt's hidden
    # states come from its own row
    gated = lm.head == "rm" and lm.reward_head.needs_gate
    # the tree and batches of all prompts, whatever is pending: a resumed run computes each prompt exactly as an
    # uninterrupted one does (tests/integration/test_cache.py: bit-identical)
    tree = opening_tree([slots[p].prefix_ids for p in prompts], min_saved=10**9 if gated else None)
    return prompt_heads(lm, tree, lambda prefixes, openings: prompt_groups(lm, prefixes, openings),
                        wanted=set(pending))


PREFIX_TOKENS = 2048  # padded prompt tokens in one batched prefix forward
OPENING_TOKENS = 4096  # padded opening positions the rows of one forward attend to (SmolLM2 float32: 46 KB each)
LOGIT_BYTES = 2 ** 28  # the kept float32 logits of one batched prefix forward: rows x distinct last positions x vocab


def prompt_groups(lm, prefixes, openings=None) -> list[list[int]]:
    """Indices of ``prefixes`` in groups whose prompts run through one forward (:func:`prefix_kv_many`): shortest
    first, so a group's prompts have similar lengths (little padding, few distinct last positions), and bounded in
    padded tokens, in the padded openings they continue (``openings``: their lengths; the stacked copy of their
    keys/values) and in the logits kept at the last positions (an LM keeps rows x distinct lengths x vocab)."""
    order = sorted(range(len(prefixes)), key=lambda i: len(prefixes[i]))
    openings = openings or [0] * len(prefixes)
    vocab = lm.model.config.vocab_size if lm.head == "lm" else 0
    groups, group = [], []
    for i in order:
        trial = group + [i]
        lengths = {len(prefixes[j]) for j in trial}
        if group and (len(trial) * max(lengths) > PREFIX_TOKENS
                      or len(trial) * max(openings[j] for j in trial) > OPENING_TOKENS
                      or len(trial) * len(lengths) * vocab * 4 > LOGIT_BYTES):
            groups.append(group)
            trial = [i]
        group = trial
    return groups + [group] if group else groups


def _rm_answer_scores(lm, slot, answer_ids, batch_size, shared, bar, kv=None, prefix_hidden=None) -> dict:
    """``prefix_hidden``: the prompt's hidden states from its forward, for a head that reads its gating token."""
    seqs = [[*a, *slot.suffix_ids] for a in answer_ids]
    bs = batch_size or auto_batch_size(lm, max(map(len, seqs)) + (0 if shared else len(slot.prefix_ids)))
    if shared and kv is None:
        kv, out = prefix_kv(lm, slot.prefix_ids)
        prefix_hidden = out.last_hidden_state[0]
    out = []
    for s in range(0, len(seqs), bs):
        batch = seqs[s:s + bs]
        if shared:
            out.append(rm_scores_shared(lm, kv, len(slot.prefix_ids), batch,
                                        (slot.prefix_ids, prefix_hidden)).cpu().numpy())
        else:
            out.append(rm_scores_full(lm, [[*slot.prefix_ids, *b] for b in batch]).cpu().numpy())
        bar.update(len(batch))
    return {"score": np.concatenate(out).astype(np.float32)}


@torch.inference_mode()
def _lm_answer_logprobs(lm, slot, answer_ids, batch_size, shared, bar, kv=None, first=None) -> dict:
    """Summed log p(answer tokens | templated prefix); token k is predicted at position P-1+k. ``kv`` and ``first``
    (the prefix's keys/values and next-token log-probs, from :func:`prefix_kv_many`) are computed here when not given."""
    P = len(slot.prefix_ids)
    if shared and kv is None:
        kv, prefix_out = prefix_kv(lm, slot.prefix_ids)
        first = torch.log_softmax(prefix_out.logits[0, -1].float(), dim=-1)
    bs = batch_size or max(1, min(256, 2 ** 22 // max(lm.model.config.vocab_size, 1)))
    sums = []
    for s in range(0, len(answer_ids), bs):
        batch = answer_ids[s:s + bs]
        if shared:
            total = lm_logprobs_shared(lm, kv, first, P, batch)
        else:
            ids, lengths = right_pad([[*slot.prefix_ids, *a] for a in batch], 0, lm.device)
            mask = (torch.arange(ids.shape[1], device=lm.device)[None] < lengths[:, None]).long()
            logits = lm.model(input_ids=ids, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, P - 1:-1], dim=-1).gather(-1, ids[:, P:, None])[..., 0]
            keep = torch.arange(P, ids.shape[1], device=lm.device)[None] < lengths[:, None]
            total = (logp * keep).sum(1)
        sums.append(total.cpu().numpy())
        bar.update(len(batch))
    return {"logprob": np.concatenate(sums).astype(np.float32)}

