"""rmlib.data.identity: HolisticBias and Dixon terms, and the combined table with its flags."""
from __future__ import annotations

import json

import pytest

import rmlib.data as D
import rmlib.data as data


pytestmark = pytest.mark.usefixtures("data_dir")


def test_identity_terms(data_dir):
    hb = D.load_holistic_bias()
    assert hb[["axis", "bucket", "descriptor"]].notna().all().all()
    assert len(hb) == 583 and hb["axis"].nunique() == 13
    raw = json.loads((data_dir / "identity_terms/holistic_bias/descriptors_v1.1.json").read_text())
    assert set(hb["axis"]) == set(raw)
    deaf = hb[hb.descriptor == "Deaf"].iloc[0]
    assert (deaf["axis"], deaf["bucket"], deaf["preference"]) == ("ability", "auditory", "reviewed")
    assert set(hb["preference"].dropna()) == {"reviewed", "dispreferred", "polarizing"}
    dixon = D.load_dixon()
    assert len(dixon) == 50 and dixon["term"].iloc[0] == "lesbian" and dixon["term"].iloc[-1] == "paralyzed"


def test_identity_terms_table_and_flags():
    t = data.identity_terms()
    assert t["term"].is_unique and (t["term"] == t["term"].str.lower()).all()
    assert int((t["source"] != "holistic_bias").sum()) == 50  # every Dixon term is present
    assert not (t["axis"] == "dixon_only").any()  # DIXON_AXES places the Dixon-only terms
    assert t.set_index("term").loc["canadian", "axis"] == "nationality"
    flagged = t[t["pejorative_in_some_uses"]]
    assert {"gay", "queer", "retarded"} <= set(flagged["term"])
    assert (flagged["note"].str.len() > 10).all()  # each flag carries its reason
    assert all(len(r) > 10 for r in data.PEJORATIVE_IN_SOME_USES.values())
