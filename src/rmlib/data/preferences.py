"""Preference pairs from six public sources in one schema, plus seeded subsampling and splitting.

Schema (every source): prompt, chosen, rejected, source, split, subset, pair_id.
- source: hh_rlhf_harmless | hh_rlhf_helpful | ultrafeedback | qa_feedback | pandalm | alpacaeval
- split: the split of the original file (test, train, eval, dev); re-split with split_pairs() for experiments
- subset: finer origin (e.g. 'helpful-online', 'alpaca-7b'); pair_id: '<source>:<subset>:<row>[:<pair>]', stable
"""
from __future__ import annotations

import functools
import gzip
import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
from rmlib.data.files import path

COLUMNS = ["prompt", "chosen", "rejected", "source", "split", "subset", "pair_id"]
HH_ASSISTANT = "\n\nAssistant:"
SOURCES = ("hh_rlhf_harmless", "hh_rlhf_helpful", "ultrafeedback", "qa_feedback", "pandalm", "alpacaeval")


def _path(rel: str):
    return path(rel)


def split_hh_transcript(chosen: str, rejected: str) -> tuple[str, str, str] | None:
    """(prompt, chosen_response, rejected_response) for an HH-RLHF pair, or None if they cannot share a prompt.

    The prompt is the chosen transcript up to and including its last '\\n\\nAssistant:'; the rejected transcript
    must start with the same prompt. Responses keep their leading space, as in the transcript.
    """
    i = chosen.rfind(HH_ASSISTANT)
    if i < 0:
        return None
    prompt = chosen[: i + len(HH_ASSISTANT)]
    if not rejected.startswith(prompt):
        return None
    return prompt, chosen[len(prompt):], rejected[len(prompt):]


def _hh(source: str, subsets: dict[str, str]) -> pd.DataFrame:
    rows = []
    for subset, rel in subsets.items():
        with gzip.open(_path(rel), "rt", encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                r = json.loads(line)
                parts = split_hh_transcript(r["chosen"], r["rejected"])
                if parts is None or parts[1] == parts[2]:
                    continue  # no shared prompt, or chosen == rejected: no preference to learn or test
                rows.append((*parts, source, "test", subset, f"{source}:{subset}:{n}"))
    return pd.DataFrame(rows, columns=COLUMNS)


def _ultrafeedback() -> pd.DataFrame:
    rows = []
    for split, rel in [("train", "preferences/ultrafeedback_binarized_sample/train_clean.jsonl"),
                       ("eval", "preferences/ultrafeedback_binarized_sample/eval_clean.jsonl")]:
        for n, line in enumerate(_path(rel).read_text(encoding="utf-8").splitlines()):
            r = json.loads(line)
            rows.append((r["prompt"], r["chosen"], r["rejected"], "ultrafeedback", split, "binarized_sample",
                         f"ultrafeedback:{split}:{n}"))
    return pd.DataFrame(rows, columns=COLUMNS)


def _qa_feedback() -> pd.DataFrame:
    data = json.loads(_path("preferences/qa_feedback_finegrainedrlhf/dev_feedback.json").read_text(encoding="utf-8"))
    rows = []
    for n, r in enumerate(data):
        # The 6 preferences compare predictions (1,2),(1,3),(1,4),(2,3),(2,4),(3,4) (FineGrainedRLHF's order);
        # 1 = first better, 2 = second better, 0 = no preference (dropped).
        pairs = list(itertools.combinations(range(1, 5), 2))
        if len(r["preference"]) != len(pairs):
            raise ValueError(f"dev_feedback.json item {n}: expected 6 preferences, got {r['preference']}")
        for k, ((a, b), pref) in enumerate(zip(pairs, r["preference"])):
            if pref == 0:
                continue
            win, lose = (a, b) if pref == 1 else (b, a)
            rows.append((r["question"], r[f"prediction {win}"], r[f"prediction {lose}"], "qa_feedback", "dev",
                         "dev_feedback", f"qa_feedback:dev:{n}:{a}{b}"))
    return pd.DataFrame(rows, columns=COLUMNS)


def pandalm_prompt(instruction: str, input_text: str) -> str:
    """PandaLM prompt: the instruction, plus a blank line and the input when there is one."""
    return f"{instruction}\n\n{input_text}" if input_text.strip() else instruction


def _pandalm() -> pd.DataFrame:
    data = json.loads(_path("preferences/pandalm_testset/testset-v1.json").read_text(encoding="utf-8"))
    rows = []
    for r in data:
        votes = Counter(int(r[f"annotator{i}"]) for i in (1, 2, 3))
        label, count = votes.most_common(1)[0]
        if count < 2 or label == 0:
            continue  # no majority, or the majority says tie
        win, lose = ("response1", "response2") if label == 1 else ("response2", "response1")
        # six responses are JSON booleans (true) in the file, i.e. the model answered "True": keep them as text
        rows.append((pandalm_prompt(r["instruction"], r["input"]), str(r[win]), str(r[lose]), "pandalm", "test",
                     r["cmp_key"], f"pandalm:test:{r['idx']}"))
    return pd.DataFrame(rows, columns=COLUMNS)


def _alpacaeval() -> pd.DataFrame:
    rows = []
    for model in ["alpaca-7b", "vicuna-13b", "claude"]:
        rel = f"preferences/alpacaeval_gpt4_annotations/{model}.annotations.json"
        for n, r in enumerate(json.loads(_path(rel).read_text(encoding="utf-8"))):
            pref = float(r["preference"])
            if pref not in (1.0, 2.0):
                continue  # 0 = GPT-4 found no preference
            win, lose = ("output_1", "output_2") if pref == 1.0 else ("output_2", "output_1")
            rows.append((r["instruction"], r[win], r[lose], "alpacaeval", "test", model,
                         f"alpacaeval:{model}:{n}"))
    return pd.DataFrame(rows, columns=COLUMNS)


@functools.lru_cache(maxsize=None)
def _load(source: str) -> pd.DataFrame:
    df = _load_raw(source)
    return df[df["chosen"] != df["rejected"]].reset_index(drop=True)  # identical responses carry no preference


def _load_raw(source: str) -> pd.DataFrame:
    if source == "hh_rlhf_harmless":
        return _hh(source, {"harmless-base": "preferences/hh_rlhf_harmless/harmless-base.test.jsonl.gz"})
    if source == "hh_rlhf_helpful":
        return _hh(source, {f"helpful-{s}": f"preferences/hh_rlhf_helpful/helpful-{s}.test.jsonl.gz"
                            for s in ["base", "online", "rejection-sampled"]})
    return {"ultrafeedback": _ultrafeedback, "qa_feedback": _qa_feedback, "pandalm": _pandalm,
            "alpacaeval": _alpacaeval}[source]()


def load_preferences(source: str | list[str] = "all") -> pd.DataFrame:
    """Preference pairs in one schema (see the module docstring).

    source: one of hh_rlhf_harmless (2,308 pairs), hh_rlhf_helpful (6,201), ultrafeedback (1,195),
    qa_feedback (2,616), pandalm (894), alpacaeval (2,397), a list of them, or 'all'.
    Rules: pairs whose two responses are identical are dropped everywhere (5 in the UltraFeedback sample);
    HH prompts are the transcript up to the last '\\n\\nAssistant:' (pairs whose transcripts do not share
    it are dropped); QA-Feedback expands its 6 pairwise preferences per
    question and drops ties; PandaLM keeps the majority of 3 annotators and drops ties; AlpacaEval drops
    GPT-4's 'no preference' (0). PandaLM's six JSON-boolean responses become the text 'True'.
    """
    names = list(SOURCES) if source == "all" else ([source] if isinstance(source, str) else list(source))
    unknown = [s for s in names if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown preference source(s) {unknown}; choose from {list(SOURCES)} or 'all'")
    return pd.concat([_load(s) for s in names], ignore_index=True)


def sample_pairs(df: pd.DataFrame, n: int, seed: int = 0) -> pd.DataFrame:
    """A deterministic random subsample of n rows (same df, n and seed -> same rows, in a seeded order)."""
    if not 0 <= n <= len(df):
        raise ValueError(f"n={n} must be between 0 and the number of pairs ({len(df)})")
    idx = np.random.default_rng(seed).permutation(len(df))[:n]
    return df.iloc[idx].reset_index(drop=True)


def split_pairs(df: pd.DataFrame, test_fraction: float = 0.2, seed: int = 0, group: str = "prompt") -> pd.DataFrame:
    """Re-split pairs into 'train' / 'test' deterministically, keeping all pairs of a group on one side.

    Grouping by prompt (the default) stops the same question leaking across the split (AlpacaEval and
    QA-Feedback repeat prompts). Returns a copy with the `split` column overwritten.
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), not {test_fraction}")
    if group not in df.columns:
        raise ValueError(f"group column {group!r} not in the DataFrame (columns: {list(df.columns)})")
    groups = pd.Index(sorted(df[group].astype(str).unique()))
    order = np.random.default_rng(seed).permutation(len(groups))
    n_test = int(round(test_fraction * len(groups)))
    test_groups = set(groups[order[:n_test]])
    out = df.copy()
    out["split"] = np.where(df[group].astype(str).isin(test_groups), "test", "train")
    return out
