"""rmlib.engine.prefix_tree.opening_tree: the prompts' shared openings as a trie (no model needed)."""
from __future__ import annotations

import pytest

from rmlib.engine.prefix_tree import Opening, opening_tree, tree_tokens


def _paths(nodes, before=()):
    """{prompt index: the tokens from the root to its leaf}, and every opening's (tokens, children count)."""
    leaves, openings = {}, []
    for n in nodes:
        here = (*before, *n.tokens)
        assert n.tokens, "every node runs at least one token"
        if n.prompt is not None:
            assert not n.children
            leaves[n.prompt] = list(here)
        else:
            assert len(n.children) >= 2
            openings.append((list(n.tokens), len(n.children)))
            sub, more = _paths(n.children, here)
            leaves.update(sub)
            openings += more
    return leaves, openings


SYSTEM = list(range(100, 120))  # 20 tokens every prompt starts with


def _prompts():
    """Two templates x two descriptors x two conditions, as the blinding chapter's prompts are built."""
    out = []
    for template in (list(range(1, 11)), list(range(11, 21))):
        for descriptor in ([30], [31]):
            body = SYSTEM + template + descriptor + list(range(40, 52))  # 12 tokens after the descriptor
            out += [body + [60, 61], body + [70, 71, 72, 73, 74, 75, 76, 77, 78, 79]]
    return out


def test_each_shared_opening_once_and_every_prompt_rebuilt():
    prompts = _prompts()
    tree = opening_tree(prompts)
    leaves, openings = _paths(tree)
    assert leaves == dict(enumerate(prompts))
    # the system text (all 8), each template's text (4 each), each template x descriptor's question (2 each)
    assert (SYSTEM, 2) in openings and len(openings) == 1 + 2 + 4
    assert (list(range(1, 11)), 2) in openings and (list(range(11, 21)), 2) in openings
    assert sum(1 for tokens, k in openings if tokens == [30] + list(range(40, 52))) == 2
    assert tree_tokens(tree) == 20 + 2 * 10 + 4 * 13 + 4 * (2 + 10)
    assert tree_tokens(tree) < sum(map(len, prompts))


def test_short_openings_are_not_worth_a_forward():
    """An opening saving fewer than min_saved positions is folded into its children; with min_saved too large for
    any, every prompt runs whole (the path without shared openings)."""
    prompts = [[1, 2, 3], [1, 2, 4], [5, 6, 7]]
    assert _paths(opening_tree(prompts, min_saved=3))[1] == []
    assert _paths(opening_tree(prompts, min_saved=2))[1] == [([1, 2], 2)]
    flat = opening_tree(_prompts(), min_saved=10 ** 9)
    assert [n.prompt for n in flat] == list(range(8)) and tree_tokens(flat) == sum(map(len, _prompts()))


def test_a_prompt_that_begins_another_and_repeated_prompts_keep_a_token_of_their_own():
    """No prompt ends inside an opening: its last position must be computed in its own row (its next-token
    log-probs), so an opening stops one token short of the shortest prompt under it."""
    prompts = [list(range(12)), list(range(20)), list(range(12)), [99]]
    leaves, openings = _paths(opening_tree(prompts, min_saved=1))
    assert leaves == dict(enumerate(prompts))
    assert openings == [(list(range(11)), 3)]


def test_empty_prompts_are_refused():
    with pytest.raises(ValueError, match="non-empty"):
        opening_tree([[1, 2], []])
    assert opening_tree([]) == [] and isinstance(opening_tree([[1]])[0], Opening)
