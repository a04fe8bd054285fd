"""rmlib.data.paper_rms: the paper RMs' metadata comes from the registry."""
from __future__ import annotations


def test_model_metadata_comes_from_the_registry():
    from rmlib.data.paper_rms import model_table
    from rmlib.registry import paper_rms

    table = model_table()
    assert len(table) == 10 and set(table.model) == set(paper_rms().id)
    # the base family the papers group by must agree with the architecture named in each hub id
    for row in table.itertuples():
        assert row.family == ("Gemma" if "gemma" in row.model.lower() else "Llama"), row.model
