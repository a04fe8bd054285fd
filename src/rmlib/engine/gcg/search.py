"""One restart of Greedy Coordinate Gradient search (Zou et al. 2023, "Universal and Transferable Adversarial Attacks
on Aligned Language Models", arXiv:2307.15043, Algorithm 1), with a buffer of the best sequences.

Each step: take the gradient of the signed objective with respect to the one-hot response at the best sequence so
far; keep the top-k tokens per position; sample ``search_width`` candidates, each replacing ``n_replace`` random
positions with random top-k tokens; score the fresh ones exactly; keep the best ``buffer_size`` sequences seen.

What this implementation adds to the algorithm, and why:

* only admissible tokens are proposed: no special or chat-control token, no id the tokenizer does not have;
* a candidate survives only if decoding it and encoding the text gives back the same ids, so every optimum is a
  string a person can type (and :func:`rmlib.engine.score_answers` scores the same ids); blank answers are dropped;
* no sequence is scored twice: every score is remembered, and a step whose best sequence has no fresh neighbours
  left expands the next sequence in the buffer instead (at one token, the whole top-k is scored at once);
* no gradient is taken twice: a sequence expanded again (the best did not change) reuses its top-k replacements;
* one row per step records the best score so far, so convergence can be charted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rmlib.engine.gcg.objective import GCGError, Objective

__all__ = ["GCGConfig", "Vocabulary", "run_restart", "top_replacements", "SAMPLING_ROUNDS", "INIT_TRIES"]

SAMPLING_ROUNDS = 4  # draws of search_width candidates per step before settling for fewer fresh ones
INIT_TRIES = 1000    # random starts drawn before giving up on one that survives decode->encode


@dataclass(frozen=True)
class GCGConfig:
    """The search's settings: top-k tokens per position, candidates per step, positions replaced per candidate
    (clipped to the response length), and how many best sequences are kept to expand from."""

    topk: int = 64
    search_width: int = 128
    n_replace: int = 1
    buffer_size: int = 4

    def __post_init__(self):
        for name in ("topk", "search_width", "n_replace", "buffer_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise GCGError(f"{name} must be a positive integer, not {value!r}")


class Vocabulary:
    """Which ids GCG may place in a response, and which responses survive decode->encode."""

    def __init__(self, tokenizer, n_rows: int, candidates: np.ndarray, chat_template: str = ""):
        self.tokenizer = tokenizer
        excluded = set(int(i) for i in tokenizer.all_special_ids)
        for i, tok in getattr(tokenizer, "added_tokens_decoder", {}).items():
            if tok.special or (tok.content.strip() and tok.content in (chat_template or "")):
                excluded.add(int(i))  # special tokens, and added tokens the chat template uses as markup
        n_tok = min(len(tokenizer), n_rows)
        self.mask = np.zeros(n_rows, dtype=bool)
        keep = [int(i) for i in candidates if int(i) < n_tok and int(i) not in excluded]
        self.mask[keep] = True
        if not self.mask.any():
            raise GCGError("every candidate token is a special or chat-control token (or outside the tokenizer): "
                           "there is nothing to search over; give other `tokens`")
        self.ids = np.flatnonzero(self.mask)

    def round_trip(self, responses) -> list[bool]:
        """True for each response (a tuple of ids) whose decoded text is not blank and encodes to the same ids."""
        if not responses:
            return []
        texts = self.tokenizer.batch_decode([list(r) for r in responses])
        again = self.tokenizer(texts, add_special_tokens=False).input_ids
        return [bool(t.strip()) and list(a) == list(r) for t, a, r in zip(texts, again, responses)]

    def text(self, response) -> str:
        return self.tokenizer.decode(list(response))

    def start(self, length: int, rng: np.random.Generator, init_ids=None) -> tuple[int, ...]:
        """The given start (checked) or random admissible tokens that survive decode->encode."""
        if init_ids is not None:
            init_ids = tuple(int(i) for i in init_ids)
            bad = [i for i in init_ids if not (0 <= i < len(self.mask)) or not self.mask[i]]
            if len(init_ids) != length:
                raise GCGError(f"the start has {len(init_ids)} tokens, the response length is {length}")
            if bad:
                raise GCGError(f"the start contains special, chat-control or excluded token ids {bad}")
            if not self.round_trip([init_ids])[0]:
                raise GCGError(f"the start {self.text(init_ids)!r} does not survive decode->encode (or is blank)")
            return init_ids
        for _ in range(INIT_TRIES // 50):
            draws = [tuple(int(i) for i in rng.choice(self.ids, size=length)) for _ in range(50)]
            for d, ok in zip(draws, self.round_trip(draws)):
                if ok:
                    return d
        raise GCGError(f"no random {length}-token start survived decode->encode in {INIT_TRIES} draws; "
                       "give a start string (init=...)")


def _sample(current: tuple, topk: np.ndarray, config: GCGConfig, rng: np.random.Generator) -> np.ndarray:
    """search_width copies of ``current``, each with n_replace random positions set to random top-k tokens."""
    n, k = topk.shape
    width, n_replace = config.search_width, min(config.n_replace, n)
    out = np.tile(np.asarray(current, dtype=np.int64), (width, 1))
    positions = rng.random((width, n)).argsort(axis=1)[:, :n_replace]
    choices = rng.integers(0, k, size=(width, n_replace))
    rows = np.arange(width)[:, None]
    out[rows, positions] = topk[positions, choices]
    return out


class _Buffer:
    """The best ``size`` distinct sequences seen, best first (ties: the earlier one stays ahead)."""

    def __init__(self, size: int):
        self.size, self.items = size, []

    def add(self, ids: tuple, value: float) -> None:
        self.items.append((value, ids))
        self.items.sort(key=lambda t: -t[0])  # stable: among equals, the first found stays first
        del self.items[self.size:]


def run_restart(objective: Objective, vocab: Vocabulary, length: int, steps: int, config: GCGConfig,
                rng: np.random.Generator, init_ids=None, on_step=None) -> list[dict]:
    """One search from one start: a row for the start (step 0) and one per step, each with the best sequence so
    far (ids, text, its ``reward``), the best reward among the step's fresh candidates (``step_reward``,
    NaN when none was left) and the counts of candidates scored, rejected by the round trip, and already seen."""
    start = vocab.start(length, rng, init_ids)
    seen: dict[tuple, float] = {}
    rejected: set[tuple] = set()
    buffer = _Buffer(config.buffer_size)
    tops: dict[tuple, np.ndarray] = {}  # each expanded sequence's top-k replacements: its gradient, taken once
    (reward,) = objective.rewards([start])
    seen[start] = objective.signed([reward])[0]
    buffer.add(start, seen[start])
    rows = [_row(0, start, reward, reward, 1, 0, 0, objective, vocab)]
    if on_step:
        on_step()
    for step in range(1, steps + 1):
        fresh, n_rejected, n_seen = [], 0, 0
        for _, current in list(buffer.items):
            if current not in tops:
                tops[current] = top_replacements(objective, vocab, current, config.topk)
            fresh, n_rejected, n_seen = _fresh_candidates(current, tops[current], config, rng, seen, rejected, vocab)
            if fresh:
                break
        step_reward = np.nan
        if fresh:
            rewards = objective.rewards(fresh)
            values = objective.signed(rewards)
            for ids, v in zip(fresh, values):
                seen[ids] = v
                buffer.add(ids, v)
            step_reward = float(rewards[int(np.argmax(values))])
        best_value, best = buffer.items[0]
        rows.append(_row(step, best, objective.sign * best_value, step_reward, len(fresh), n_rejected, n_seen,
                         objective, vocab))
        if on_step:
            on_step()
    return rows


def top_replacements(objective: Objective, vocab: Vocabulary, current: tuple, topk: int) -> np.ndarray:
    """The [length, k] admissible ids with the largest gradient of the signed objective at ``current``: GCG's
    candidate tokens per position, best first (public, so a reader's own step can be compared with the search's).

    A step that finds nothing better than the best sequence expands that same sequence again; its gradient is a
    function of the sequence alone, so run_restart keeps these per sequence instead of taking the gradient again
    (with a short search, most late steps keep their best: each repeat cost a forward and a backward pass)."""
    grad = objective.gradient(current)
    grad[:, ~torch.as_tensor(vocab.mask)] = -torch.inf
    return grad.topk(min(topk, len(vocab.ids)), dim=1).indices.numpy()


def _fresh_candidates(current, topk, config, rng, seen, rejected, vocab):
    fresh, batch_seen, n_rejected, n_seen = [], set(), 0, 0
    for _ in range(SAMPLING_ROUNDS):
        new = []
        for row in _sample(current, topk, config, rng):
            ids = tuple(int(i) for i in row)
            if ids in seen or ids in batch_seen:
                n_seen += 1
            elif ids in rejected:
                n_rejected += 1
            else:
                new.append(ids)
                batch_seen.add(ids)
        for ids, ok in zip(new, vocab.round_trip(new)):
            if ok:
                fresh.append(ids)
            else:
                rejected.add(ids)
                n_rejected += 1
        if len(fresh) >= config.search_width:
            break
    return fresh[:config.search_width], n_rejected, n_seen


def _row(step, ids, reward, step_reward, n_scored, n_rejected, n_seen, objective, vocab) -> dict:
    return {"step": step, "reward": float(reward), "ids": [int(i) for i in ids], "text": vocab.text(ids),
            "tokens": [vocab.text([i]) for i in ids],
            "step_reward": float(step_reward), "n_scored": int(n_scored), "n_rejected": int(n_rejected),
            "n_seen": int(n_seen)}
