"""What `rmlib sweep` and `rmlib audit` print (#28 items 8-10): plain sentences, the reward kind, where the rows were
saved, tokens escaped as the book shows them, progress on a terminal only, a cached sweep served without loading its
model, and the audit as a short summary (raw JSON with --json)."""
from __future__ import annotations

import json
import sys
from dataclasses import replace

import pandas as pd
import pytest

from rmlib.cli import main
from rmlib.data.tokens import show_whitespace

PROMPT = "What, in one word, is the greatest thing ever?"
TINY_RM = ["--model", "tiny-llama", "--head", "rm", "--allow-untrained-head", "--dtype", "float32"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    return tmp_path


def _refuse_loading(monkeypatch):
    """Any model load fails the test."""
    import rmlib.models
    from rmlib.models import loading

    def refused(*_, **__):
        raise AssertionError("the model was loaded although its sweep is cached")
    for name, source in list(loading.SOURCES.items()):
        monkeypatch.setitem(loading.SOURCES, name, replace(source, load=refused))
    monkeypatch.setattr(loading, "load_model", refused)
    monkeypatch.setattr(rmlib.models, "load_model", refused)


def test_sweep_says_what_it_scored_and_where_it_saved_it_with_tokens_escaped(cache, tmp_path, capsys):
    out_file = tmp_path / "rows.parquet"
    assert main(["sweep", *TINY_RM, "--prompt", PROMPT, "--tokens", "180:320", "--top", "70",
                 "--out", str(out_file)]) == 0
    out, err = capsys.readouterr()
    rows = pd.read_parquet(out_file)
    (key,) = [p.name for p in (cache / "sweeps").iterdir() if p.is_dir()]
    first = out.splitlines()[0]
    assert first.startswith("Scored 140 tokens of tiny-llama as the one-token answer to") and "computed now" in first
    assert " ; key" not in out and "RM score" in out and "untrained" in out  # the reward kind, and what the head is
    assert f"Saved in the cache: {cache / 'sweeps' / key}" in out and str(out_file) in out
    # every row is shown (70 at each end of 140): no raw control character, and spaces marked as the book does
    assert all(ch.isprintable() or ch == "\n" for ch in out), [ch for ch in out if not ch.isprintable()][:5]
    controls = {ch for t in rows["text"] for ch in t if ord(ch) < 32 and ch not in "\n\t\r"}
    assert controls and all(f"\\x{ord(ch):02x}" in out for ch in controls)  # e.g. \x0b, not the raw byte
    spaced = [t for t in rows["text"] if t.startswith(" ") and t.strip().isprintable() and t.strip()]
    assert spaced and all(show_whitespace(t) in out and show_whitespace(t).startswith("␣") for t in spaced)
    # not on a terminal: no progress bar or loading line on stderr
    assert "tok/s" not in err and "%|" not in err and "loading" not in err


def test_sweep_shows_loading_and_the_sweeps_progress_on_a_terminal(cache, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["sweep", "--model", "tiny-qwen2", "--head", "lm", "--dtype", "float32", "--prompt", PROMPT,
                 "--tokens", "0:64", "--top", "3"]) == 0
    out, err = capsys.readouterr()
    assert "loading tiny-qwen2" in err and "loaded tiny-qwen2 in" in err
    assert "lm sweep" in err and "64/64" in err and "<00:00" in err  # the bar, with its ETA
    assert "LM log-prob (implicit reward)" in out and "top 3 by log-prob" in out and "%|" not in out


def test_a_second_cli_sweep_of_the_same_request_does_not_load_the_model(cache, capsys, monkeypatch):
    from rmlib.engine import sweep_index
    monkeypatch.setattr(sweep_index, "fingerprint", lambda spec, options: "weights-v1")  # as a GGUF's sha256
    args = ["sweep", *TINY_RM, "--prompt", PROMPT, "--tokens", "0:48", "--top", "5"]
    assert main(args) == 0
    first = capsys.readouterr().out
    with monkeypatch.context() as mp:
        _refuse_loading(mp)
        assert main(args) == 0
        again = capsys.readouterr().out
        assert "served from the cache without loading the model" in again.splitlines()[0]
        assert again.split("\n", 1)[1] == first.split("\n", 1)[1]  # the same rows, kind and folder
        # another method is another request: it loads (and, here, fails the test's refusal)
        with pytest.raises(AssertionError, match="was loaded"):
            main([*args, "--method", "full"])


def test_audit_prints_a_short_summary_and_json_on_request(cache, capsys):
    assert main(["audit", "--model", "tiny-llama", "--dtype", "float32"]) == 0
    text = capsys.readouterr().out
    assert main(["audit", "--model", "tiny-llama", "--dtype", "float32", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    lines = text.splitlines()
    assert not text.lstrip().startswith("{") and len(lines) <= 20, text
    n, k = report["n_ids"], report["n_changed"]
    assert k > 0 and lines[0] == f"tiny-llama: {k} of {n} token ids ({k / n:.1%}) do not survive decode -> encode:"
    assert sum(report["by_kind"].values()) == k and all(kind in text for kind in report["by_kind"])
    examples = [line for line in lines if line.startswith("  ") and ": " in line and " -> [" in line]
    assert examples and len(set(e.split(": ", 1)[1] for e in examples)) == len(examples)  # distinct examples
    assert all(ch.isprintable() or ch == "\n" for ch in text)
