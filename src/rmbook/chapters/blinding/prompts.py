"""The decisions of the blinding chapter and the four conditions' prompts (no model is loaded here).

Why this module exists: Christian & Mazor (FAccT 2026, arXiv:2601.14553) report that telling an LLM to ignore a
candidate's gender or race does not remove the bias (and sometimes makes it worse), while letting it consult a
*blinded replica* of itself (the same model, asked without the information) does. The chapter asks the same yes/no
decisions under four conditions:

1. **informed**: the person is described with an identity descriptor ("a Muslim applicant");
2. **told_to_ignore**: the same, plus an instruction to ignore the attribute;
3. **blinded**: the descriptor removed ("an applicant"), the replica; one prompt per template, the same text on
   every descriptor's row, so its disparity across descriptors is zero by construction;
4. **counterfactual**: the informed prompt plus the replica's answer from 3 *for the same template*, as text.

The decisions and descriptors are in ``data/blinding.yaml`` (written for this chapter; descriptors drawn from the
HolisticBias and Dixon et al. lexicons that `rmlib.data` loads, and checked against them on loading). Scoring is in
:mod:`rmbook.chapters.blinding.scores`, the disparity statistics in :mod:`rmbook.chapters.blinding.analysis`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import yaml

from rmbook.paths import ROOT
from rmlib.data import load_dixon, load_holistic_bias
from rmlib.errors import RmlibError

__all__ = ["CONDITIONS", "CONDITION_LABELS", "DESIGN_FILE", "DesignError", "Design", "load_design",
           "person_phrase", "decision_prompts", "replica_answers", "counterfactual_prompts"]

CONDITIONS = ("informed", "told_to_ignore", "blinded", "counterfactual")
CONDITION_LABELS = {"informed": "1 informed", "told_to_ignore": "2 told to ignore", "blinded": "3 blinded replica",
                    "counterfactual": "4 replica's answer shown"}
DESIGN_FILE = ROOT / "data" / "blinding.yaml"


class DesignError(RmlibError, ValueError):
    """The decision design (templates, descriptors, answers) cannot be used; the message says what to fix."""


# --------------------------------------------------------------------------- the design

@dataclass(frozen=True)
class Design:
    """Templates x descriptors x the wording of the conditions, as loaded from ``data/blinding.yaml``.

    ``templates``: key, domain, noun, article, text. ``descriptors``: axis, attribute, descriptor, article,
    in_holistic_bias, in_dixon, hb_axis.
    """

    templates: pd.DataFrame
    descriptors: pd.DataFrame
    answers: tuple[str, str]
    answer_format: str
    ignore_instruction: str
    replica_note: str
    source: str = ""

    def select(self, templates_per_domain: int | None = None, axes: Sequence[str] | None = None) -> "Design":
        """The first ``templates_per_domain`` templates of every domain (file order) and the named axes."""
        t, d = self.templates, self.descriptors
        if templates_per_domain is not None:
            if isinstance(templates_per_domain, bool) or not isinstance(templates_per_domain, int) \
                    or templates_per_domain < 1:
                raise DesignError(f"templates_per_domain must be a positive integer or None, "
                                  f"not {templates_per_domain!r}")
            t = t.groupby("domain", sort=False).head(templates_per_domain)
        if axes is not None:
            unknown = sorted(set(axes) - set(d["axis"]))
            if unknown or not list(axes):
                raise DesignError(f"unknown or empty axes {unknown or list(axes)}; the design has "
                                  f"{list(dict.fromkeys(d['axis']))}")
            d = d[d["axis"].isin(list(axes))]
        return replace(self, templates=t.reset_index(drop=True), descriptors=d.reset_index(drop=True))


def _article(word: str, override: str | None = None) -> str:
    if override is not None:
        if override not in ("a", "an"):
            raise DesignError(f"article must be 'a' or 'an', not {override!r} (for {word!r})")
        return override
    return "an" if word[:1].lower() in "aeiou" else "a"


def _lexicon_membership(terms: Iterable[str]) -> pd.DataFrame:
    """For each descriptor: is it a HolisticBias v1.1 descriptor, a Dixon et al. term, and its HolisticBias axis."""
    norm = lambda s: " ".join(str(s).lower().replace("-", " ").split())  # noqa: E731  'middle aged' == 'middle-aged'
    hb = load_holistic_bias()
    hb_axis = dict(zip(hb["descriptor"].map(norm), hb["axis"]))
    dixon = set(load_dixon()["term"].map(norm))
    rows = [(t, norm(t) in hb_axis, norm(t) in dixon, hb_axis.get(norm(t))) for t in terms]
    return pd.DataFrame(rows, columns=["descriptor", "in_holistic_bias", "in_dixon", "hb_axis"])


def load_design(path: str | Path | None = None, *, check_lexicons: bool = True) -> Design:
    """Read and check the design file (default ``data/blinding.yaml``).

    Refused with a DesignError: a template without ``{person}``/``{Person}`` or with an unknown placeholder, a
    repeated key or descriptor, an axis with fewer than two descriptors, answers that are not two different words,
    and (``check_lexicons``) a descriptor that is neither a HolisticBias v1.1 descriptor nor a Dixon et al. term.
    """
    path = Path(path) if path is not None else DESIGN_FILE
    raw = _read_design_file(path)
    desc, templates = _descriptors(path, raw["axes"], check_lexicons), _templates(path, raw["templates"])
    if templates.empty or desc.empty:
        raise DesignError(f"{path}: the design needs at least one template and one axis")
    answers = raw["answers"]
    return Design(templates=templates, descriptors=desc, answers=(answers[0], answers[1]),
                  answer_format=" ".join(raw["answer_format"].split()),
                  ignore_instruction=" ".join(raw["ignore_instruction"].split()),
                  replica_note=" ".join(raw["replica_note"].split()), source=str(path))


def _read_design_file(path: Path) -> dict:
    """The design file's mapping, its top-level keys, answers and instruction placeholders checked."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DesignError(f"design file {path} not found (the chapter's decisions are in data/blinding.yaml)") \
            from None
    except yaml.YAMLError as e:
        raise DesignError(f"design file {path} is not valid YAML: {e}") from None
    if not isinstance(raw, dict):
        raise DesignError(f"{path}: expected a mapping at the top level")
    missing = [k for k in ("answers", "answer_format", "ignore_instruction", "replica_note", "axes", "templates")
               if k not in raw]
    if missing:
        raise DesignError(f"{path}: missing {missing}")
    answers = raw["answers"]
    if not (isinstance(answers, list) and len(answers) == 2 and all(isinstance(a, str) and a.strip() for a in answers)
            and answers[0] != answers[1]):
        raise DesignError(f"{path}: answers must be two different words (favourable first), not {answers!r}")
    for key, fields in (("ignore_instruction", {"noun", "attribute"}), ("replica_note", {"noun", "attribute",
                                                                                          "answer", "p"})):
        used = _placeholders(raw[key])
        if not used <= fields:
            raise DesignError(f"{path}: {key} uses unknown placeholders {sorted(used - fields)}; "
                              f"allowed {sorted(fields)}")
    if "{answer}" not in raw["replica_note"]:
        raise DesignError(f"{path}: replica_note must show the replica's answer ({{answer}})")
    return raw


def _descriptors(path: Path, axes: dict | None, check_lexicons: bool) -> pd.DataFrame:
    """One row per descriptor: its axis, attribute and article, and (``check_lexicons``) where the lexicons list it;
    a descriptor that neither HolisticBias nor Dixon et al. lists is refused."""
    rows = []
    for axis, spec in (axes or {}).items():
        items = (spec or {}).get("descriptors") or []
        if not spec or not spec.get("attribute") or len(items) < 2:
            raise DesignError(f"{path}: axis {axis!r} needs an attribute and at least two descriptors")
        for item in items:
            term, art = (item.get("term"), item.get("article")) if isinstance(item, dict) else (item, None)
            if not isinstance(term, str) or not term.strip():
                raise DesignError(f"{path}: axis {axis!r} has an empty descriptor {item!r}")
            rows.append((axis, spec["attribute"], term, _article(term, art)))
    desc = pd.DataFrame(rows, columns=["axis", "attribute", "descriptor", "article"])
    dup = desc["descriptor"][desc["descriptor"].duplicated()].tolist()
    if dup:
        raise DesignError(f"{path}: descriptors listed twice: {dup}")
    if not check_lexicons:
        return desc.assign(in_holistic_bias=pd.NA, in_dixon=pd.NA, hb_axis=None)
    desc = desc.merge(_lexicon_membership(desc["descriptor"]), on="descriptor", how="left")
    absent = desc[~desc["in_holistic_bias"] & ~desc["in_dixon"]]["descriptor"].tolist()
    if absent:
        raise DesignError(f"{path}: {absent} are neither HolisticBias v1.1 descriptors nor Dixon et al. terms; "
                          "take descriptors from those lexicons (rmlib.data.load_holistic_bias / load_dixon)")
    return desc


def _templates(path: Path, items: list | None) -> pd.DataFrame:
    """One row per template (key, domain, noun, article, text), each naming the person and no unknown placeholder."""
    trows = []
    for t in items or []:
        if not isinstance(t, dict) or not all(isinstance(t.get(k), str) and t[k].strip()
                                              for k in ("key", "domain", "noun", "text")):
            raise DesignError(f"{path}: every template needs key, domain, noun and text, got {t!r}")
        used = _placeholders(t["text"])
        if not used & {"person", "Person"} or not used <= {"person", "Person", "noun"}:
            raise DesignError(f"{path}: template {t['key']!r} must name the person with {{person}} or {{Person}} "
                              f"and may use only {{noun}} besides (found {sorted(used)})")
        trows.append((t["key"], t["domain"], t["noun"], _article(t["noun"], t.get("article")),
                      " ".join(t["text"].split())))
    templates = pd.DataFrame(trows, columns=["key", "domain", "noun", "article", "text"])
    dup = templates["key"][templates["key"].duplicated()].tolist()
    if dup:
        raise DesignError(f"{path}: template keys listed twice: {dup}")
    return templates


def _placeholders(text: str) -> set[str]:
    import string
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# --------------------------------------------------------------------------- prompts

def person_phrase(noun: str, noun_article: str, descriptor: str | None = None, article: str | None = None) -> str:
    """'a Muslim applicant' (informed) or 'an applicant' (blinded)."""
    return f"{article} {descriptor} {noun}" if descriptor is not None else f"{noun_article} {noun}"


def _body(template, person: str) -> str:
    return template.text.format(person=person, Person=person[:1].upper() + person[1:], noun=template.noun)


def _prompt(design: Design, body: str, extra: str | None = None) -> str:
    return " ".join(p for p in (body, extra, design.answer_format) if p)


def decision_prompts(design: Design) -> pd.DataFrame:
    """Conditions 1-3 for every template x descriptor: template, domain, axis, attribute, descriptor, condition,
    prompt. The blinded prompt does not depend on the descriptor: it is the same text on every descriptor's row."""
    rows = []
    for t in design.templates.itertuples(index=False):
        blinded = _prompt(design, _body(t, person_phrase(t.noun, t.article)))
        for d in design.descriptors.itertuples(index=False):
            informed = _body(t, person_phrase(t.noun, t.article, d.descriptor, d.article))
            ignore = design.ignore_instruction.format(noun=t.noun, attribute=d.attribute)
            for cond, prompt in (("informed", _prompt(design, informed)),
                                 ("told_to_ignore", _prompt(design, informed, ignore)),
                                 ("blinded", blinded)):
                rows.append((t.key, t.domain, d.axis, d.attribute, d.descriptor, cond, prompt))
    return pd.DataFrame(rows, columns=["template", "domain", "axis", "attribute", "descriptor", "condition", "prompt"])


def replica_answers(blinded: pd.DataFrame, answers: Sequence[str]) -> pd.DataFrame:
    """The blinded replica's answer per template, from its P(yes): template, replica_answer (the answer it
    prefers; a tie counts as the favourable one), replica_yes (whether that is the favourable answer), replica_p
    (its probability of that answer, out of the two)."""
    b = blinded.drop_duplicates("template")[["template", "p_yes"]]
    yes = b["p_yes"].to_numpy() >= 0.5
    return pd.DataFrame({"template": b["template"].to_numpy(),
                         "replica_answer": np.where(yes, answers[0], answers[1]), "replica_yes": yes,
                         "replica_p": np.where(yes, b["p_yes"], 1 - b["p_yes"])})


def counterfactual_prompts(design: Design, replica: pd.DataFrame) -> pd.DataFrame:
    """Condition 4: the informed prompt plus the replica's answer *for the same template* (``replica`` is
    :func:`replica_answers`). Same columns as :func:`decision_prompts` plus replica_answer, replica_yes, replica_p."""
    by_template = replica.set_index("template")
    missing = sorted(set(design.templates["key"]) - set(by_template.index))
    if missing:
        raise DesignError(f"no replica answer for templates {missing}")
    rows = []
    for t in design.templates.itertuples(index=False):
        r = by_template.loc[t.key]
        for d in design.descriptors.itertuples(index=False):
            informed = _body(t, person_phrase(t.noun, t.article, d.descriptor, d.article))
            note = design.replica_note.format(noun=t.noun, attribute=d.attribute, answer=r["replica_answer"],
                                              p=f"{r['replica_p']:.2f}")
            rows.append((t.key, t.domain, d.axis, d.attribute, d.descriptor, "counterfactual",
                         _prompt(design, informed, note), r["replica_answer"], bool(r["replica_yes"]),
                         float(r["replica_p"])))
    return pd.DataFrame(rows, columns=["template", "domain", "axis", "attribute", "descriptor", "condition", "prompt",
                                       "replica_answer", "replica_yes", "replica_p"])
