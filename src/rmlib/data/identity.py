"""Identity terms: HolisticBias v1.1 descriptors with their axes, the Dixon et al. (2018) adjectives, and the
terms in one table with the flags the identity chapter needs (used as insults in some uses; ambiguous items)."""
from __future__ import annotations

import functools
import json

import pandas as pd
from rmlib.data.files import path


@functools.lru_cache(maxsize=None)
def _holistic_bias() -> pd.DataFrame:
    raw = json.loads(path("identity_terms/holistic_bias/descriptors_v1.1.json").read_text(encoding="utf-8"))
    rows = []
    for axis, buckets in raw.items():
        if not isinstance(buckets, dict):
            raise ValueError(f"descriptors_v1.1.json: axis {axis!r} should map buckets to lists")
        for bucket, items in buckets.items():
            for item in items:
                if isinstance(item, str):
                    rows.append((axis, bucket, item, None, None))
                elif isinstance(item, dict) and "descriptor" in item:
                    rows.append((axis, bucket, item["descriptor"], item.get("preference"), item.get("gender")))
                else:
                    raise ValueError(f"descriptors_v1.1.json: unexpected entry {item!r} under {axis}/{bucket}")
    return pd.DataFrame(rows, columns=["axis", "bucket", "descriptor", "preference", "gender"])


def load_holistic_bias() -> pd.DataFrame:
    """HolisticBias v1.1 descriptors: axis (ability, age, body_type, characteristics, cultural, gender_and_sex,
    nationality, nonce, political_ideologies, race_ethnicity, religion, sexual_orientation, socioeconomic_class),
    bucket (sub-group within the axis), descriptor, preference ('reviewed'|'dispreferred'|'polarizing' where the
    dataset gives one, else missing), gender (only for gendered descriptors, else missing).
    """
    return _holistic_bias().copy()


@functools.lru_cache(maxsize=None)
def _dixon() -> pd.DataFrame:
    terms = [t.strip() for t in path("identity_terms/dixon2018/adjectives_people.txt").read_text(
        encoding="utf-8").splitlines() if t.strip()]
    return pd.DataFrame({"term": terms})


def load_dixon() -> pd.DataFrame:
    """The 50 identity adjectives of Dixon et al. (2018) ('lesbian', 'gay', ..., 'paralyzed'): column term."""
    return _dixon().copy()

# Terms that appear in the identity lists but are also used as insults or slurs in some contexts. Their rank can
# reflect that use rather than the group, so the chapter marks them instead of reading them as group attitudes.
PEJORATIVE_IN_SOME_USES: dict[str, str] = {
    "gay": "used as a generic insult ('that's so gay') in some slang",
    "queer": "a reclaimed self-label that is still used as a slur",
    "retarded": "a clinical label that became a common slur; HolisticBias marks it dispreferred",
    "crippled": "dated and often derogatory; HolisticBias marks it dispreferred",
    "dumb": "means 'unable to speak' but mostly used as 'stupid'",
    "lame": "means 'unable to walk normally' but mostly used as 'uncool'",
    "midget": "regarded as a slur by many people of short stature",
    "redneck": "a class/regional label used mostly as an insult",
    "hillbilly": "a regional label used mostly as an insult",
    "ghetto": "used as an adjective meaning 'low-class'",
    "illegal": "as a noun for immigrants ('illegals') it is widely considered dehumanising",
    "oriental": "dated for people of East Asian descent and considered offensive",
    "colored": "historically a segregation-era label; offensive in US usage",
    "fat": "a descriptor also used as an insult (reclaimed by some fat-acceptance writers)",
    "homosexual": "clinical term some style guides discourage as stigmatising",
    "ginger": "used to tease red-haired people, especially in the UK",
    "trailer trash": "a class label that is an insult by construction",
}

# Noun forms under which identity adjectives appear as EloEverything items (religions and ideologies).
NOUN_FORMS: dict[str, tuple[str, ...]] = {
    "christian": ("christianity",), "jewish": ("judaism", "jews"), "muslim": ("islam", "muslims"),
    "buddhist": ("buddhism",), "hindu": ("hinduism",), "sikh": ("sikhism",), "catholic": ("catholicism",),
    "protestant": ("protestantism",), "taoist": ("taoism",), "atheist": ("atheism",),
    "liberal": ("liberalism",), "conservative": ("conservatism",), "socialist": ("socialism",),
    "communist": ("communism",), "feminist": ("feminism",), "libertarian": ("libertarianism",),
    "female": ("woman", "women"), "male": ("man", "men"),
}


# Dixon et al. terms that HolisticBias does not list in the same spelling, on the HolisticBias axis they belong to.
DIXON_AXES: dict[str, str] = {"african american": "race_ethnicity", "canadian": "nationality",
                              "japanese": "nationality", "middle aged": "age", "millenial": "cultural"}

# Items that match an identity term by the rules of match_identity_items but mostly mean something else. They are
# left out by default, each with the reason, so that a spice or a pair of shorts is not read as a group of people.
AMBIGUOUS_ITEMS: dict[str, str] = {
    "shorts": "clothing, not people who are short",
    "country": "the word or country music, not a cultural group",
    "latin": "the language",
    "ginger": "the spice and plant as much as red hair",
    "white": "the colour as much as the group",
    "straight": "mostly the geometric/ordinary sense",
    "older": "a comparative, not a group",
    "slow": "mostly the ordinary sense",
}
def identity_terms() -> pd.DataFrame:
    """HolisticBias descriptors and the Dixon et al. terms in one table.

    Columns: term (lowercase), source ('holistic_bias', 'dixon' or 'both'), axis (HolisticBias axis; Dixon terms not
    in HolisticBias get theirs from DIXON_AXES), bucket, hb_preference (HolisticBias's 'reviewed', 'dispreferred' or
    'polarizing' label), pejorative_in_some_uses (bool), note (the reason, from PEJORATIVE_IN_SOME_USES).
    """
    import numpy as np

    hb = load_holistic_bias()
    hb = hb.assign(term=hb["descriptor"].str.lower().str.strip())
    hb = hb.groupby("term", as_index=False).agg({"axis": "first", "bucket": "first", "preference": "first"})\
        .rename(columns={"preference": "hb_preference"})  # a term listed under two axes keeps its first
    dx = load_dixon().assign(term=lambda d: d["term"].str.lower().str.strip())[["term"]].drop_duplicates()
    out = hb.merge(dx.assign(_dx=True), on="term", how="outer")
    out["source"] = np.select([out["axis"].notna() & out["_dx"].eq(True), out["axis"].notna()],
                              ["both", "holistic_bias"], "dixon")
    out["axis"] = out["axis"].fillna(out["term"].map(DIXON_AXES)).fillna("dixon_only")
    out["pejorative_in_some_uses"] = out["term"].isin(PEJORATIVE_IN_SOME_USES)
    out["note"] = out["term"].map(PEJORATIVE_IN_SOME_USES).fillna("")
    return out[["term", "source", "axis", "bucket", "hb_preference", "pejorative_in_some_uses", "note"]]\
        .sort_values(["axis", "term"], ignore_index=True)
