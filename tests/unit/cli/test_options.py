"""rmlib.cli.options: every command that loads a model takes the same loading options, with the same defaults and
help (`rmlib check` lacked --score-reader and the card's --device said less than the sweep's), and they are read
back into one LoadOptions."""
from __future__ import annotations

import argparse

from rmlib.cli.main import build_parser
from rmlib.cli.options import load_options

LOADING = ["--head", "--dtype", "--device", "--revision", "--trust-remote-code", "--score-reader", "--allow-pickle"]


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _flags(p: argparse.ArgumentParser) -> dict[str, tuple]:
    return {a.option_strings[0]: (a.default, a.help, tuple(a.choices or ())) for a in p._actions if a.option_strings}


def test_every_loading_command_declares_the_same_options():
    commands = _commands()
    loaders = {name: _flags(commands[name]) for name in ("sweep", "audit", "gcg", "check", "card")}
    reference = loaders["sweep"]
    for name, flags in loaders.items():
        assert {f: flags.get(f) for f in LOADING} == {f: reference[f] for f in LOADING}, name
    assert "--allow-untrained-head" in loaders["check"] and "--allow-untrained-head" not in loaders["card"]


def test_the_options_read_back_into_load_options_and_a_card_never_allows_a_random_head():
    commands = _commands()
    check = commands["check"].parse_args(["tiny-llama", "--head", "lm", "--score-reader", "logits0", "--dtype",
                                          "float32", "--allow-untrained-head"])
    opts = load_options(check)
    assert (opts.head, opts.score_reader, opts.dtype, opts.allow_untrained_head) == ("lm", "logits0", "float32", True)
    card = commands["card"].parse_args(["tiny-llama", "--trust-remote-code", "--revision", "a" * 40])
    opts = load_options(card)
    assert opts.trust_remote_code and opts.revision == "a" * 40 and opts.allow_untrained_head is False


def test_a_command_s_description_is_its_handler_s_docstring():
    """One text says what a command does, for `rmlib <command> --help` and for a reader of the code."""
    for name, p in _commands().items():
        if p.description:
            handler = p.get_default("func")
            assert handler is not None and p.description == handler.__doc__, name
    assert "Greedy Coordinate Gradient" in _commands()["gcg"].format_help()
