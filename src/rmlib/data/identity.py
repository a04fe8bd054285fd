"""Identity terms: HolisticBias v1.1 descriptors with their axes, and the Dixon et al. (2018) adjectives."""
from __future__ import annotations

import functools
import json

import pandas as pd


@functools.lru_cache(maxsize=None)
def _holistic_bias() -> pd.DataFrame:
    from rmlib.data import path

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
    from rmlib.data import path

    terms = [t.strip() for t in path("identity_terms/dixon2018/adjectives_people.txt").read_text(
        encoding="utf-8").splitlines() if t.strip()]
    return pd.DataFrame({"term": terms})


def load_dixon() -> pd.DataFrame:
    """The 50 identity adjectives of Dixon et al. (2018) ('lesbian', 'gay', ..., 'paralyzed'): column term."""
    return _dixon().copy()
