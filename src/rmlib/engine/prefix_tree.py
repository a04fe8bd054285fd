"""Shared openings of many prompts: each runs through the model once, and only what follows it runs per prompt.

Why: the prompts one call of :func:`rmlib.engine.score_answers` scores often begin alike. In the blinding chapter
(#17) every prompt starts with the chat template's system text, the 25 prompts of one decision template share its
text up to the descriptor, and the conditions of one template and descriptor share the whole question. A forward of
each whole prompt computes those openings again and again; here the prompts are arranged in a tree of token
openings (:func:`opening_tree`), each opening runs once, and its children run on top of its keys/values
(:func:`prompt_heads`, through :func:`rmlib.engine.kernels.prefix_kv_many` with ``opening=``). Exact: attention over
a cached opening is one softmax over opening and new positions (:mod:`rmlib.engine.prefix_attention`), so values
differ from one forward per prompt only by float rounding (held to 1e-5 in P(yes), float32, in
tests/integration/test_answers_prefix.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from rmlib.engine.kernels import prefix_kv_many

__all__ = ["MIN_SAVED_TOKENS", "Opening", "opening_tree", "tree_tokens", "prompt_heads"]

MIN_SAVED_TOKENS = 8
"""An opening gets its own forward only if running it once saves at least this many token positions (``(children -
1) x its length``): a forward has a fixed cost (~1-2 token positions of SmolLM2 on a CPU), and a one-token opening
such as the article "a" / "an" is not worth one."""


@dataclass
class Opening:
    """A node of the tree: ``tokens`` follow the parent's opening; ``prompt`` is the index of the prompt that ends
    here (a leaf) or None (an opening that ``children`` continue). Every leaf has at least one token, so a prompt's
    last position is always computed in its own row."""

    tokens: list[int]
    prompt: int | None = None
    children: list["Opening"] = field(default_factory=list)


def opening_tree(prompts: Sequence[Sequence[int]], min_saved: int | None = None) -> list[Opening]:
    """The top-level nodes (their tokens start at position 0) of a compressed trie over ``prompts`` (token ids):
    a node for every opening shared by two or more prompts that saves at least ``min_saved`` token positions
    (default :data:`MIN_SAVED_TOKENS`), a leaf per prompt. Children keep the order in which their prompts first
    appear."""
    min_saved = MIN_SAVED_TOKENS if min_saved is None else min_saved
    seqs = [list(p) for p in prompts]
    if any(not s for s in seqs):
        raise ValueError("opening_tree needs non-empty prompts")
    return _children(seqs, list(range(len(seqs))), 0, min_saved)


def _children(seqs, members, depth, min_saved) -> list[Opening]:
    parts: dict[int, list[int]] = {}
    for i in members:
        parts.setdefault(seqs[i][depth], []).append(i)
    out = []
    for part in parts.values():
        end = _shared_end(seqs, part, depth)
        if len(part) == 1 or end == depth:  # nothing to share beyond `depth` that leaves every prompt a token
            out.extend(Opening(seqs[i][depth:], i) for i in part)
            continue
        kids = _children(seqs, part, end, min_saved)
        edge = seqs[part[0]][depth:end]
        if (len(kids) - 1) * len(edge) >= min_saved:
            out.append(Opening(edge, None, kids))
        else:  # not worth a forward of its own: its children carry its tokens
            out.extend(Opening(edge + k.tokens, k.prompt, k.children) for k in kids)
    return out


def _shared_end(seqs, part, depth) -> int:
    """The end of the members' common opening, short enough that every member keeps at least one token after it."""
    end = min(len(seqs[i]) for i in part) - 1
    first = seqs[part[0]]
    for i in part[1:]:
        s = seqs[i]
        k = depth
        while k < end and s[k] == first[k]:
            k += 1
        end = k
    return max(end, depth)


def tree_tokens(nodes: Sequence[Opening]) -> int:
    """Token positions the tree runs through the model (each opening once): what :func:`prompt_heads` costs."""
    return sum(len(n.tokens) + tree_tokens(n.children) for n in nodes)


def _leaves(node: Opening) -> set[int]:
    return {node.prompt} if node.prompt is not None else set().union(*(_leaves(c) for c in node.children))


def prompt_heads(lm, nodes: Sequence[Opening], groups: Callable, wanted=None) -> Iterator[tuple[int, list, object]]:
    """(prompt index, the prompt's keys/values, its next-token log-probs) for every leaf under ``nodes``, level by
    level: the nodes of one depth run together through :func:`rmlib.engine.kernels.prefix_kv_many`, each row on its
    parent's keys/values, in batches from ``groups`` (token lists and the lengths of their openings -> lists of
    indices: :func:`rmlib.engine.answers.prompt_groups`); many small forwards, one per opening, would cost more
    than the positions they save (a CPU forward of a few rows runs its matrix products far below peak). An
    opening's keys/values are dropped once its children have run.

    ``wanted`` (prompt indices, None: all): only the leaves asked for are yielded, and a batch with none of them
    below it is skipped. The tree and its batches are those of the whole set of prompts whatever is wanted, so a
    resumed run (only the prompts still missing) computes each prompt in the same forward, with the same rows and
    shapes, as an uninterrupted run: bit-identical values, not values a float rounding apart."""
    frontier = [(node, None) for node in nodes]
    while frontier:
        deeper = []
        widths = [0 if kv is None else kv[0][0].shape[1] for _, kv in frontier]
        for batch in groups([frontier[i][0].tokens for i in range(len(frontier))], widths):
            if wanted is not None and not set().union(*(_leaves(frontier[i][0]) for i in batch)) & set(wanted):
                continue
            openings = None if frontier[batch[0]][1] is None else [frontier[i][1] for i in batch]
            heads = prefix_kv_many(lm, [frontier[i][0].tokens for i in batch], openings,
                                   last_logprobs=any(frontier[i][0].prompt is not None for i in batch))
            for i, (kv, first) in zip(batch, heads):
                node = frontier[i][0]
                if node.prompt is not None:
                    if wanted is None or node.prompt in wanted:
                        yield node.prompt, kv, first
                else:
                    deeper.extend((child, kv) for child in node.children)
        frontier = deeper
