"""``rmlib card MODEL [--quick] [--vocab]``: a value card of any reward model (or an LM as an implicit reward), placed among the
ten paper RMs (:mod:`rmbook.chapters.value_cards.analysis`), written as ``card.json`` (typed, checked when read),
``card.md`` and ``card.html`` (offline)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

from rmbook.chapters.value_cards.analysis import ValueCard, diff_cards, value_card
from rmbook.chapters.value_cards.diff import MDC_TEXT, what_changed
from rmbook.chapters.value_cards.lm import REWARDS
from rmbook.paths import use_checkout_folders
from rmbook.report.card import MAP_SIDES, card_html, card_markdown, null_sentence, shown_token
from rmbook.report.masking import mask_text
from rmlib import engine
from rmlib.cli.check import run_checks
from rmlib.cli.options import add_load_options, integer_at_least, load_options
from rmlib.cli.show import on_terminal, quiet_libraries
from rmlib.data.kinds import is_lm_logprob
from rmlib.errors import ModelError
from rmlib.storage import atomic
from rmbook.results import read_results, write_results

__all__ = ["add_card_command", "default_folder"]


def default_folder(model: str) -> Path:
    """``_build/cards/<model>``, the model id made a safe folder name (``owner/name`` -> ``owner--name``)."""
    return Path("_build") / "cards" / re.sub(r"[^A-Za-z0-9._@-]+", "--", model).strip("-.")


def _read_card(path: str) -> ValueCard:
    """A card.json (or the folder holding one), checked against its type and checksum."""
    p = Path(path)
    folder, name = (p, "card.json") if p.is_dir() else (p.parent, p.name)
    if name != "card.json":
        raise ValueError(f"{path}: give a card.json (or the folder that holds one)")
    return read_results("card", folder, ValueCard)


# The loader's advice to an LM loaded as an RM, in Python's spelling: head='lm', or allow_untrained_head=True.
_LM_ADVICE = re.compile(r" (?:Load|Sweep) it with head='lm'.*allow_untrained_head=True for speed tests only\.", re.S)


def _in_card_flags(error: ModelError) -> ModelError:
    """The loader's advice in the card's own flags (#62): ``--head lm`` where it says ``head='lm'``, and no
    ``allow_untrained_head``, which the card does not take (a card never scores a random head)."""
    text = str(error)
    if "head='lm'" not in text:
        return error
    text = _LM_ADVICE.sub(" Give --head lm: the card then reads the answers' log-probabilities, the LM's implicit "
                          "reward (a card never scores a random head).", text)
    return ModelError(text.replace("head='lm'", "--head lm"))


def _cmd_diff(paths: list[str], seeds: list[str]) -> int:
    if len(paths) != 2:
        raise ValueError(f"usage: rmlib card diff A/card.json B/card.json (got {len(paths)} paths)")
    a, b = (_read_card(p) for p in paths)
    table = diff_cards(a, b, [_read_card(p) for p in seeds])
    print(f"from {a.label} ({paths[0]}) to {b.label} ({paths[1]}):")
    for note in what_changed(a, b):
        print(f"  changed besides the numbers: {note}")
    for r in table.itertuples():
        line = f"  {r.measure}: {_num(r.a)} → {_num(r.b)} ({_num(r.change, signed=True)})"
        if r.outside_noise == r.outside_noise and r.outside_noise is not None:
            verdict = "OUTSIDE the noise" if r.outside_noise else "within noise"
            floor = "" if r.floor != r.floor or r.floor is None else f"; seed floor {r.floor:.1f}"
            why = f"; {r.noise}" if isinstance(r.noise, str) else ""
            line += (f"  {verdict} (paired interval {r.ci_low:+.1f} to {r.ci_high:+.1f}, minimum detectable "
                     f"change {r.mdc:.1f}{floor}{why})")
        print(line)
    print(f"(paired bootstrap over the prompts and words both cards share; {MDC_TEXT})")
    return 0


def _num(x, signed: bool = False) -> str:
    """A diff's number to at most four significant digits (#66 item 9: it printed six): whole numbers whole, two
    decimals below 100, one from 100 (a rank of 263 words, 103.5), none from 1000."""
    if x is None or x != x:
        return "–"
    x = float(x)
    places = 0 if x.is_integer() or abs(x) >= 1000 else 1 if abs(x) >= 100 else 2
    return f"{x:+.{places}f}" if signed else f"{x:.{places}f}"


def _cmd_card(args) -> int:
    """Score the Big Two nouns and a 200-term MFD2 sample as one-word answers to the 18 one-word prompts of the
    54-prompt design, and 500 EloEverything items under that chapter's three prompts (cached and resumable like
    every rmlib score); compute, as the chapters do, the agency − communion gap, the ranks of 'love' and
    'freedom', the five moral foundations' median ranks, the framing and frequency slopes, Spearman's ρ with
    people's Elo ratings and Kendall's τ with each paper RM; and place them among the ten paper RMs' released
    scores. --quick: the Big Two nouns under four prompts only. --vocab: also the tokens rewarded most and least
    by a full-vocabulary sweep. Writes card.json, card.md and card.html (one offline page)."""
    if args.target[0] == "diff":
        return _cmd_diff(args.target[1:], args.seed_cards)
    if len(args.target) != 1:
        raise ValueError(f"give one model (or `diff A B`), got {args.target}")
    use_checkout_folders()  # as the book's runner: the checkout's data and cache unless the environment names others
    args.model = args.target[0]
    out = Path(args.out) if args.out else default_folder(args.model)
    if not on_terminal():
        quiet_libraries()  # off a terminal, no library's progress bars (the card's lines are what a log needs)
    try:
        load = load_options(args)
        checks = run_checks(engine.resolve_model(args.model, load), timing_tokens=64)
        card = value_card(args.model, kind="quick" if args.quick else "standard", n_resamples=args.resamples,
                          seed=args.seed, load=load, progress=on_terminal(), vocab=args.vocab, label=args.label,
                          checks=checks, reward=args.reward)
    except ModelError as e:
        raise _in_card_flags(e) from None
    _print_card(card)
    path, md, page = _write_card(card, out)
    print(f"wrote {path}, {md} and {page}", file=sys.stdout)
    return 0


def _write_card(card: ValueCard, out: Path) -> list[Path]:
    """card.json, card.md and card.html in ``out``, made only now: a failed run leaves no empty folder behind."""
    out.mkdir(parents=True, exist_ok=True)
    md, page = out / "card.md", out / "card.html"
    path = write_results(card, out)
    atomic.write_bytes(md, (card_markdown(card) + "\n").encode("utf-8"))
    atomic.write_bytes(page, card_html(card).encode("utf-8"))
    return [path, md, page]


def _print_card(card: ValueCard) -> None:
    """The card's findings, one line each, for a terminal or a log."""
    for c in card.checks:
        if c.status in ("FAIL", "WARN"):
            print(f"rmlib check: {c.status} {c.check}: {c.detail}")
    print(null_sentence(card))
    if is_lm_logprob(card.reward_kind):
        rhos = "; ".join(f"{v} prompts: length {card.lm[f'length_{v}_min']:+.2f} to {card.lm[f'length_{v}_max']:+.2f}, "
                         f"frequency {card.lm[f'frequency_{v}_min']:+.2f} to {card.lm[f'frequency_{v}_max']:+.2f}"
                         for v in ("positive", "negative") if f"length_{v}_min" in card.lm)
        print(f"an implicit reward ({card.reward_kind}), not a reward model; Spearman ρ of its rewards within each "
              f"prompt with {rhos}")
    for p, g in zip(card.placements, card.gaps):
        print(f"{p.valence} prompts: gap {p.gap:+.1f} (agency − communion median rank; 95% interval over words and "
              f"prompts {g.ci_low:+.1f} to {g.ci_high:+.1f}), {p.side}; nearest {', '.join(p.nearest)}")
    beyond = [p for p in card.foundation_placements if p.side != "among them"]
    if card.foundation_placements:
        print(f"moral foundations: {len(beyond)} of {len(card.foundation_placements)} foundation × valence ranks "
              "beyond all ten paper RMs (whole interval)" + "".join(f"; {p.foundation}, {p.valence}: {p.side}" for p in beyond))
    for f in card.framing_placements:
        print(f"framing, {f.measure}: {f.estimate:+.2f} (oriented slope difference), {f.side}")
    for f in card.exposure_placements:
        print(f"frequency slope, {f.measure} prompts: {f.estimate:+.2f} (valence held fixed), {f.side}")
    if card.elo_placement is not None:
        print(f"EloEverything: Spearman ρ {card.elo.rho:.2f} with the human ratings, {card.elo_placement.side}")
        if card.map is not None:
            print(f"heterogeneity map: mean Kendall τ {card.map.mean_tau:.2f} with the paper RMs, "
                  f"{MAP_SIDES[card.map.placement.side]}; most alike {next(iter(card.map.taus))}")
        for d, where in (("over", "above"), ("under", "below")):
            items = [mask_text(i.item) for i in card.elo_items if i.direction == d]
            if items:
                print(f"EloEverything: valued most {where} people's ratings: {', '.join(items)}")
    if card.identity is not None:
        print(f"groups of people: mean excess {card.identity.excess:+.1f} percentile points over "
              f"{len(card.identity.items)} EloEverything items, {card.identity.placement.side}")
    if card.agreement:
        print("most alike (Kendall τ on the Big Two nouns): "
              + ", ".join(f"{t.reference} {t.tau:.2f}" for t in card.agreement[:3]))
    for key in dict.fromkeys(t.prompt_key for t in card.vocab):
        top = [t for t in card.vocab if t.prompt_key == key and t.side == "highest"]
        print(f"whole vocabulary ({card.vocab_size:,} tokens), {key}: rewarded most "
              + ", ".join(shown_token(t.text, t.token_id) for t in top[:5]))


def add_card_command(sub) -> None:
    """Register ``card`` on an argparse subparsers object."""
    p = sub.add_parser("card", help="a value card of a reward model, placed among the ten paper RMs",
                       description=_cmd_card.__doc__)
    p.add_argument("target", nargs="+", metavar="MODEL | diff A B",
                   help="registry id, hub id 'owner/name', local:<name> or local:/path (an LM gives its implicit "
                        "reward: the answer's log-probability); or `diff A/card.json B/card.json`: what changed "
                        "between two cards, each change judged by a paired bootstrap over their shared words and "
                        "prompts")
    p.add_argument("--quick", action="store_true", help="the quick card: Big Two and love/freedom under four prompts "
                                                        "(wider intervals, no foundations, no agreement)")
    p.add_argument("--vocab", action="store_true", help="also sweep the whole vocabulary under the FAccT paper's three "
                                                        "prompts and list the tokens rewarded most and least (cached; "
                                                        "minutes for a small LM on 2 cores)")
    p.add_argument("--reward", choices=list(REWARDS), default="sum",
                   help="an LM's implicit reward: 'sum', the answer's summed log-probability (default), or "
                        "'per-token', its mean over the answer's tokens (the length out of the sum); the card says "
                        "which, and that neither is the ICLR paper's log-ratio against a reference model")
    p.add_argument("--label", default=None, help="the card's title (default: the registry's nickname, else the "
                                                  "model id; a local: folder's path is long)")
    p.add_argument("--seed-cards", nargs="+", default=[], metavar="CARD",
                   help="with diff: cards of other seeds of the same training run as A, whose spread is the floor "
                        "below which no change is called real")
    p.add_argument("--out", default=None, help="folder for card.json, card.md and card.html (default _build/cards/<model>)")
    p.add_argument("--resamples", type=integer_at_least(1, "a positive number of resamples (default 999)"),
                   default=999, help="bootstrap resamples over words and prompts (default 999)")
    p.add_argument("--seed", type=integer_at_least(0, "a seed of 0 or more (default 0)"), default=0,
                   help="seeds the bootstrap over words and prompts (default 0; `card diff` pairs two cards' draws "
                        "when their seeds and resamples match)")
    add_load_options(p, untrained_head=False)  # a card never scores a random head
    p.set_defaults(func=_cmd_card)
