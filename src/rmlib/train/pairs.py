"""Preference pairs for training, chosen before any tokenizer is involved, so every base sees the same pairs.

Pairs are filtered (empty prompts, chat control strings of any common template), split by prompt, subsampled with a
seed (nested: 500 pairs are inside 1000) and scheduled as consecutive seeded permutations; :func:`data_hash` proves
two runs saw the same data.
"""
from __future__ import annotations

import hashlib
import json
import math
import re

import numpy as np
import pandas as pd

from rmlib.data.preferences import load_preferences, sample_pairs, split_pairs
from rmlib.models.templates import SENTINEL
from rmlib.train.config import SYNTHETIC, SYNTHETIC_MAX_PAIRS, TrainConfig, TrainConfigError

__all__ = ["synthetic_marker_pairs", "data_hash", "select_pairs", "schedule"]

# Chat control strings of the common templates: a pair containing one would break the turn structure of
# some base, so it is dropped for all bases (the filter must not depend on the tokenizer).
_CONTROL = re.compile(r"<\|[A-Za-z0-9_]+\|>|<start_of_turn>|<end_of_turn>|<bos>|<eos>|<pad>|</s>|\[INST\]|\[/INST\]"
                      + "|" + re.escape(SENTINEL))


def synthetic_marker_pairs(n: int = 64, marker: str = "peace", seed: int = 0) -> pd.DataFrame:
    """An easy preference set with a known rule: the chosen response contains `marker`, the rejected never does.

    For tests and the chapter's tiny mode: an RM that learns anything should reach held-out accuracy near 1.
    """
    if not 0 < n <= SYNTHETIC_MAX_PAIRS:
        raise TrainConfigError(f"the {SYNTHETIC} source makes 1 to {SYNTHETIC_MAX_PAIRS:,} pairs, not {n:,}; "
                               "lower n_pairs or n_test")
    rng = np.random.default_rng(seed)
    pool = ["hope", "joy", "music", "family", "truth", "dog", "fox", "answer", "thing", "world", "time", "good",
            "quick", "brown", "lazy", "friendship", "kindness", "freedom"]
    pool = [w for w in pool if w != marker]
    asks = ["What is the best thing in the world?", "What, in one word, is the greatest thing ever?",
            "Please answer in one word only.", "What is the worst thing of all time?"]
    rows = []
    for i in range(n):
        k = int(rng.integers(2, 6))
        chosen = list(rng.choice(pool, k))
        chosen.insert(int(rng.integers(0, k + 1)), marker)
        rejected = list(rng.choice(pool, k + 1))
        rows.append((f"{asks[i % len(asks)]} Case {i}.", " ".join(chosen), " ".join(rejected), SYNTHETIC, "train",
                     marker, f"{SYNTHETIC}:{marker}:{i}"))
    return pd.DataFrame(rows, columns=["prompt", "chosen", "rejected", "source", "split", "subset", "pair_id"])


def _usable(df: pd.DataFrame) -> pd.Series:
    text = df["prompt"].astype(str) + "\n" + df["chosen"].astype(str) + "\n" + df["rejected"].astype(str)
    return df["prompt"].astype(str).str.strip().ne("") & ~text.str.contains(_CONTROL)


def data_hash(df: pd.DataFrame) -> str:
    """Hash of the pairs and their order (pair_id, prompt, chosen, rejected): equal hashes, equal data."""
    h = hashlib.sha256()
    for row in df[["pair_id", "prompt", "chosen", "rejected"]].itertuples(index=False):
        h.update(json.dumps(list(row)).encode())
    return h.hexdigest()[:16]


def select_pairs(cfg: TrainConfig, pairs: pd.DataFrame | None = None,
                 n_test: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test) pairs for a config: filtered, split by prompt, seeded subsamples; same for every base.

    `n_test` draws another number of held-out pairs from the same split (an evaluation larger than the run's own
    test set, nested: it contains the run's test pairs when larger); the training pairs do not change."""
    if pairs is None:
        parts = [synthetic_marker_pairs(max(cfg.n_pairs or 0, 64) + cfg.n_test * 2, seed=cfg.seed)
                 if s == SYNTHETIC else load_preferences(s) for s in cfg.sources]
        pairs = pd.concat(parts, ignore_index=True)
    missing = {"prompt", "chosen", "rejected", "pair_id"} - set(pairs.columns)
    if missing:
        raise TrainConfigError(f"the preference pairs lack columns {sorted(missing)}")
    kept = pairs[_usable(pairs)]
    if kept.empty:
        raise TrainConfigError(f"no usable preference pairs from sources {cfg.sources} after filtering "
                               f"(empty prompts and chat control strings are dropped; {len(pairs)} pairs before)")
    split = split_pairs(kept, test_fraction=cfg.test_fraction, seed=cfg.seed)
    train, test = split[split["split"] == "train"], split[split["split"] == "test"]
    if train.empty or test.empty:
        raise TrainConfigError(f"the split left {len(train)} training and {len(test)} test pairs "
                               f"(from {len(kept)} usable pairs in {kept['prompt'].nunique()} prompts); "
                               "use more data or another test_fraction")
    n = len(train) if cfg.n_pairs is None else cfg.n_pairs
    if n > len(train):
        raise TrainConfigError(f"n_pairs={n} but only {len(train)} training pairs are available from {cfg.sources} "
                               f"after filtering and holding out test prompts; lower n_pairs or add sources")
    return (sample_pairs(train, n, seed=cfg.seed),
            sample_pairs(test, min(cfg.n_test if n_test is None else n_test, len(test)), seed=cfg.seed))


def schedule(n_train: int, steps: int, per_step: int, seed: int) -> np.ndarray:
    """Row indices the run consumes, step by step: consecutive seeded permutations of the training pairs."""
    rng = np.random.default_rng(seed)
    need = steps * per_step
    order = [rng.permutation(n_train) for _ in range(math.ceil(need / n_train))]
    return np.concatenate(order)[:need]
