"""`rmlib card` (rmbook.cli.card): its counts are checked when parsed, a usage error that names the option (#62)."""
from __future__ import annotations

import pytest

from rmbook.cli import card as cli_card
from rmlib.cli import main


@pytest.mark.parametrize("args, option", [
    (["--quick", "--resamples", "-1"], "--resamples"),   # before: exit 0 (a quick card draws no resamples)
    (["--resamples", "0"], "--resamples"),
    (["--seed", "-1"], "--seed"),                        # before: numpy's "expected non-negative integer"
])
def test_a_negative_count_or_seed_is_a_usage_error_naming_the_option(args, option, monkeypatch, capsys, tmp_path):
    def never(*_, **__):
        raise AssertionError("the card ran")

    monkeypatch.setattr(cli_card, "value_card", never)
    with pytest.raises(SystemExit) as exit_:
        main(["card", "tiny-llama", *args, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"argument {option}: " in err and args[-1] in err


def test_a_diffs_numbers_have_at_most_four_significant_digits():
    """#66 item 9: `card diff` printed six significant digits (a foundation's median rank as 103.45, a change as
    -0.123456)."""
    shown = [cli_card._num(x) for x in (103.456, -72.5349, 0.401234, 213.0, 1234.5678)]
    assert shown == ["103.5", "-72.53", "0.40", "213", "1235"]
    assert cli_card._num(-0.123456, signed=True) == "-0.12" and cli_card._num(0.0, signed=True) == "+0"
    assert all(len(s.strip("+-").replace(".", "").lstrip("0")) <= 4 for s in shown)


def test_a_direct_card_uses_the_checkouts_folders_as_the_books_runner_does(monkeypatch, tmp_path):
    """#64 leftover: `rmlib card` run from a checkout with no RMLIB_* variable set read rmlib's user folders
    (~/.local/share/rmlib: "prompts_54.yaml is missing from the data directory"), not the checkout's data and cache,
    which `make book` and the runner use; a folder the environment names still wins."""
    from rmbook import paths
    from rmlib import config

    seen = {}

    def stop(args):  # the first thing the card does with the environment: record it and stop
        seen.update(data=config.data_dir(), cache=config.cache_dir())
        raise ValueError("stopped here")

    monkeypatch.setattr(cli_card, "load_options", stop)
    monkeypatch.delenv(config.DATA_ENV, raising=False)
    monkeypatch.delenv(config.MIRROR_ENV, raising=False)
    monkeypatch.setenv(config.CACHE_ENV, str(tmp_path / "mine"))  # restored afterwards, whatever the call sets
    assert main(["card", "tiny-llama", "--quick", "--out", str(tmp_path / "out")]) == 2
    assert seen == {"data": (paths.ROOT / "data" / "external").resolve(), "cache": (tmp_path / "mine").resolve()}
