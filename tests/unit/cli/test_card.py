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
