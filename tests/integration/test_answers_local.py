"""Where the answers of a ``local:`` folder are cached (#66 item 9): a user's folder is left as it was (`rmlib card
local:/path` wrote an ``answers/`` folder into it); an RM rmlib trained keeps its answers inside its own folder, so
retraining it under the same name replaces them."""
from __future__ import annotations

from rmlib.engine.answers import score_answers
from rmlib.models import LoadOptions
from rmlib.models.tiny import tiny_model


def _save_rm(folder):
    model, tok = tiny_model("llama", head="rm")
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return sorted(p.name for p in folder.iterdir())


def test_a_users_folder_gets_nothing_written_and_a_trained_rms_keeps_its_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    mine = tmp_path / "my_rm"
    before = _save_rm(mine)
    one = score_answers(f"local:{mine}", ["What is best?"], ["love", "freedom"], progress=False,
                        load=LoadOptions(dtype="float32"))
    assert sorted(p.name for p in mine.iterdir()) == before  # before: an answers/ folder beside its weights
    assert list((tmp_path / "cache" / "answers").iterdir())  # in the cache instead
    trained = tmp_path / "cache" / "rms" / "planted"
    _save_rm(trained)
    two = score_answers(f"local:{trained}", ["What is best?"], ["love", "freedom"], progress=False,
                        load=LoadOptions(dtype="float32"))
    assert (trained / "answers").is_dir() and len(one) == len(two) == 2
