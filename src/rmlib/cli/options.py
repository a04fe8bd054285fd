"""The options that say how a model is loaded, declared once for every subcommand that loads one (``sweep``,
``audit``, ``gcg``, ``check``, and the book's ``card``), so that their flags, defaults and help cannot drift apart,
and read back into one :class:`rmlib.models.LoadOptions`."""
from __future__ import annotations

import argparse

__all__ = ["add_load_options", "load_options", "integer_at_least"]


def integer_at_least(least: int, what: str):
    """An argparse type: an integer of at least ``least``, or a usage error (exit 2, argparse names the option) that
    says ``what`` to give: ``--seed -1`` or ``--resamples -1`` is refused when parsed, not taken or failed later."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"{text!r}: give {what}")
        return value
    return parse


def add_load_options(p, *, head_default: str | None = None, untrained_head: bool = True) -> None:
    """Add --head, --dtype, --device, --revision, --trust-remote-code, --score-reader, --allow-pickle and (with
    ``untrained_head``) --allow-untrained-head to the argparse parser ``p``. A command that may never score a random
    head (the value card) leaves the last one out, and :func:`load_options` reads it as False."""
    p.add_argument("--head", choices=["rm", "lm"], default=head_default,
                   help="rm: scalar reward; lm: the answer's log-probability (default: the model's kind)")
    p.add_argument("--dtype", default=None, help="auto (default), float32, bfloat16 or float16")
    p.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cuda when available; a model that "
                                                  "fits one GPU goes whole onto it)")
    p.add_argument("--revision", default=None,
                   help="hub models: the commit to load (a 40-hex id; required with --trust-remote-code)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow the model's own code to run (never implied; hub code only at a pinned --revision)")
    p.add_argument("--score-reader", default=None,
                   help="how an RM's score is read (default: the registry's; e.g. urm_gated for URM's own reward)")
    p.add_argument("--allow-pickle", action="store_true",
                   help="read pickle weight files (.bin) for a model that ships no safetensors (they can run code)")
    if untrained_head:
        p.add_argument("--allow-untrained-head", action="store_true",
                       help="load an LM with a random scalar head (speed tests only; it is not a reward model)")


def load_options(args):
    """The :class:`rmlib.models.LoadOptions` of parsed arguments that :func:`add_load_options` declared."""
    from rmlib.models import LoadOptions  # rmlib.models' face is lazy; this keeps `rmlib --help` free of torch

    return LoadOptions(head=args.head, dtype=args.dtype, device=args.device, revision=args.revision,
                       trust_remote_code=args.trust_remote_code,
                       allow_untrained_head=getattr(args, "allow_untrained_head", False),
                       allow_pickle=args.allow_pickle, score_reader=args.score_reader)
