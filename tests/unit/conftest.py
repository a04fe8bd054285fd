"""Shared by unit tests. A synthetic long table of family scores with a planted effect (families, implicit), and,
for the blinding tests (analysis, charts, prose), the chapter's design, and a stub scorer whose P(yes)
depends on the descriptor by a known amount (a planted bias), so every statistic has an exact expected value."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.blinding.prompts import load_design
from rmbook.chapters.blinding.scores import score_model


@pytest.fixture(scope="session")
def blinding_design():
    return load_design()


@pytest.fixture(scope="session")
def planted_scorer():
    """The stub scorer class (a fixture, so tests can build one with another mass)."""
    return PlantedScorer


class PlantedScorer:
    """P(yes) = the template's base + the descriptor's planted shift, scaled by 1.5 when told to ignore (a
    backfire) and by 0.25 when shown the replica's answer. Reads nothing but the prompt text."""

    PLANTED = {"Christian": 0.03, "Muslim": -0.12, "Jewish": 0.04, "Buddhist": 0.08,
               "young": 0.10, "middle-aged": 0.00, "old": -0.06, "elderly": -0.10}
    BASE = [0.20, 0.35, 0.65, 0.80]  # blinded P(yes) of the four templates: two replicas say No, two say Yes
    IGNORE_FACTOR, REPLICA_FACTOR = 1.5, 0.25

    def __init__(self, design, mass: float = 1.0):
        self.design, self.mass, self.calls = design, mass, []
        self.cues = {}  # a phrase unique to each template -> its base
        for i, t in enumerate(design.templates.itertuples()):
            chunk = max(re.split(r"\{\w+\}", t.text), key=len)
            self.cues[chunk] = self.BASE[i]

    def p(self, prompt: str) -> float:
        base = [b for cue, b in self.cues.items() if cue in prompt]
        assert len(base) == 1, prompt
        named = [d for d in self.PLANTED if re.search(rf"\b(a|an) {re.escape(d)} ", prompt)]
        assert len(named) <= 1, prompt
        shift = self.PLANTED[named[0]] if named else 0.0
        if "Ignore the" in prompt:
            shift *= self.IGNORE_FACTOR
        if "A version of you" in prompt:
            shift *= self.REPLICA_FACTOR
        return base[0] + shift

    def __call__(self, prompts):
        self.calls.append(list(prompts))
        rows = []
        for pr in prompts:
            p = self.p(pr)
            rows += [(pr, "Yes", np.log(self.mass * p), "LM log-prob (implicit reward)"),
                     (pr, "No", np.log(self.mass * (1 - p)), "LM log-prob (implicit reward)")]
        return pd.DataFrame(rows, columns=["prompt", "answer", "reward", "reward_kind"])


@pytest.fixture(scope="session")
def planted(blinding_design):
    small = blinding_design.select(templates_per_domain=1, axes=["religion", "age"])
    scorer = PlantedScorer(small)
    return small, scorer, score_model("stub", small, scorer=scorer)


FAMILY_PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]
FAMILY_VALENCE = {"best_ever_one": "positive", "greatest_ever_one": "positive", "worst_ever_one": "negative",
                  "bad_ever_one": "negative"}


def _family_scores(n_per_family=4, n_words=30, effect=0.0, seed=0, families=("Gemma", "Llama"),
                     kind="RM score"):
    """Long table: Gemma models score Agency words ``effect`` higher under positive prompts."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    cats = ["Agency" if i % 2 == 0 else "Communion" for i in range(n_words)]
    rows = []
    for fam in families:
        for j in range(n_per_family):
            m = f"{fam.lower()}-{j}"
            base = rng.normal(0, 1, n_words)  # the model's own taste, shared by its prompts
            for pk in FAMILY_PROMPTS:
                s = base + rng.normal(0, 0.5, n_words)
                if fam == families[0] and FAMILY_VALENCE[pk] == "positive":
                    s = s + effect * np.array([c == "Agency" for c in cats])
                for w, c, v in zip(words, cats, s):
                    rows.append((m, m, fam, kind, pk, pk, FAMILY_VALENCE[pk], w, c, v))
    return pd.DataFrame(rows, columns=["model", "nickname", "family", "reward_kind", "prompt_key", "prompt",
                                       "valence", "word", "category", "reward"])


@pytest.fixture
def family_scores():
    """Builds the synthetic long table: ``family_scores(n_per_family=..., effect=..., seed=..., families=..., kind=...)``."""
    return _family_scores
