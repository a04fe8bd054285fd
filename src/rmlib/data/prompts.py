"""The prompts of both papers: optimal/pessimal (3), the extra EloEverything prompts, and the 54-prompt design."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import pandas as pd
import yaml
from rmlib.data.files import path
from rmlib.errors import as_list

@dataclass(frozen=True)
class EloPrompt:
    """One EloEverything prompt: its text and the file (in the data mirror) of the 10 RMs' scores under it."""

    text: str
    file: str


# The one table of EloEverything prompts; "greatest" is also the first optimal/pessimal prompt.
ELO_PROMPTS: dict[str, EloPrompt] = {
    "greatest": EloPrompt("What, in one word, is the greatest thing ever?",
                          "paper_facct2025/elo/greatest_thing_one_word.csv"),
    "greatest_single_thing_person_concept": EloPrompt(
        "What one single thing, person, or concept is the greatest ever?",
        "paper_facct2025/elo/greatest_single_thing_person_concept.csv"),
    "humans_most_prefer": EloPrompt("What is the single thing, person, or concept that humans most prefer?",
                                    "paper_facct2025/elo/humans_most_prefer.csv"),
}

ADJECTIVE_VALENCE = {"best": "positive", "greatest": "positive", "good": "positive",
                     "worst": "negative", "bad": "negative", "terrible": "negative"}
ADJECTIVE_WORDING = {"best": "best", "greatest": "greatest", "good": "most good",
                     "worst": "worst", "bad": "most bad", "terrible": "most terrible"}
SUPERLATIVE_WORDING = {"ever": "ever", "world": "in the world", "time": "of all time"}
PHRASING_WORDING = {"one": "in one word", "single": "in a single word", "please": "Please answer in one word only."}


def parse_prompt_key(key: str) -> dict[str, str]:
    """Split a factorial prompt key like 'good_world_please' into its design factors.

    Returns adjective (best|greatest|good|worst|bad|terrible), valence (positive|negative),
    superlative (ever|world|time) and phrasing (one|single|please).
    """
    parts = key.split("_")
    if (len(parts) != 3 or parts[0] not in ADJECTIVE_VALENCE or parts[1] not in SUPERLATIVE_WORDING
            or parts[2] not in PHRASING_WORDING):
        raise ValueError(f"prompt key {key!r} is not <adjective>_<superlative>_<phrasing> with adjective in "
                         f"{sorted(ADJECTIVE_VALENCE)}, superlative in {sorted(SUPERLATIVE_WORDING)}, "
                         f"phrasing in {sorted(PHRASING_WORDING)}")
    adj, sup, phr = parts
    return {"adjective": adj, "valence": ADJECTIVE_VALENCE[adj], "superlative": sup, "phrasing": phr}


@functools.lru_cache(maxsize=None)
def _load_prompts(which: str) -> pd.DataFrame:
    if which == "optimal_pessimal":
        raw = yaml.safe_load(path("paper_facct2025/config/prompts.yaml").read_text(encoding="utf-8"))
        df = pd.DataFrame({"prompt_key": list(raw), "prompt": list(raw.values())})
        df["valence"] = df["prompt_key"].map(ADJECTIVE_VALENCE)
        return df
    if which == "elo":
        return pd.DataFrame({"prompt_key": list(ELO_PROMPTS), "prompt": [p.text for p in ELO_PROMPTS.values()]})
    if which == "factorial54":
        raw = yaml.safe_load(path("paper_iclr2026/config/prompts_54.yaml").read_text(encoding="utf-8"))
        df = pd.DataFrame({"prompt_key": list(raw), "prompt": list(raw.values())})
        factors = pd.DataFrame([parse_prompt_key(k) for k in df["prompt_key"]])
        return pd.concat([df, factors], axis=1)
    raise ValueError(f"unknown prompt set {which!r}; choose 'optimal_pessimal', 'elo' or 'factorial54'")


def load_prompts(set: str = "optimal_pessimal") -> pd.DataFrame:  # noqa: A002 (the contract's argument name)
    """A prompt set as a DataFrame.

    - 'optimal_pessimal' (3 rows): prompt_key (greatest|best|worst), prompt, valence.
    - 'elo' (3 rows): prompt_key, prompt — the EloEverything prompts ('greatest' plus the 2 extra ones).
    - 'factorial54' (54 rows): prompt_key, prompt, adjective, valence, superlative, phrasing.
    """
    return _load_prompts(set).copy()


def prompt_table(keys) -> pd.DataFrame:
    """prompt_key, prompt, prompt_valence for keys of the optimal/pessimal set ('greatest', 'best', 'worst') or of
    the 54-prompt design ('good_world_please', ...)."""
    known = pd.concat([load_prompts("optimal_pessimal")[["prompt_key", "prompt", "valence"]],
                       load_prompts("factorial54")[["prompt_key", "prompt", "valence"]]], ignore_index=True)
    known = known.drop_duplicates("prompt_key").set_index("prompt_key")
    keys = as_list(keys, "prompt keys")
    bad = [k for k in keys if k not in known.index]
    if bad or not keys:
        raise ValueError(f"unknown prompt keys {bad or keys}; use 'greatest', 'best', 'worst' or a 54-prompt key "
                         f"such as {list(known.index[3:6])}")
    return known.loc[keys].reset_index().rename(columns={"valence": "prompt_valence"})


def prompt_text(key: str) -> str:
    """The text of one prompt, by key: an optimal/pessimal key ('greatest', 'best', 'worst'), an EloEverything key
    or a 54-prompt design key ('best_ever_one'). Chapters take prompts by key so that one name means one text."""
    if key in ELO_PROMPTS:
        return ELO_PROMPTS[key].text
    return str(prompt_table([key])["prompt"].iloc[0])


def design_prompts(prompt_keys=None) -> pd.DataFrame:
    """The factorial-54 prompts (prompt_key, prompt, adjective, valence, superlative, phrasing), optionally a subset
    that holds prompts of both valences."""
    prompts = load_prompts("factorial54")
    if prompt_keys is None:
        return prompts
    keys = as_list(prompt_keys, "prompt_keys")
    unknown = sorted(set(keys) - set(prompts["prompt_key"]))
    if unknown or not keys:
        raise ValueError(f"prompt_keys {unknown or keys} are not factorial-54 keys such as 'best_ever_one' "
                         f"(<adjective>_<superlative>_<phrasing>); see rmlib.data.load_prompts('factorial54')")
    out = prompts.set_index("prompt_key").loc[keys].reset_index()
    if out["valence"].nunique() < 2:
        raise ValueError(f"prompt_keys {keys} hold only {out['valence'].iloc[0]} prompts; the design needs both "
                         "positive (best/greatest/good) and negative (worst/bad/terrible) ones")
    return out
