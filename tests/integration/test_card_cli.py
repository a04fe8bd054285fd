"""`rmlib card MODEL [--quick]` (#42): a tiny model's card written as card.json (typed), card.md and card.html (checked
in a browser), its placement printed, the answers served from the cache the second time, and plain errors for what
it cannot do."""
from __future__ import annotations

import pytest

from rmbook.chapters.value_cards import analysis as rmcard
from rmbook.chapters.value_cards.analysis import ValueCard
from rmbook.chapters.value_cards.build import card_answers
from rmlib.cli import main
from rmbook.results import read_results
from tests.integration.test_cli_output import _refuse_loading


def _browser_check(page) -> list[str]:
    """What tools/browser_check.py finds wrong with ``page`` in headless Chromium at 1280 px (empty: it passes)."""
    import importlib.util

    from rmbook.paths import ROOT

    spec = importlib.util.spec_from_file_location("browser_check", ROOT / "tools" / "browser_check.py")
    bc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bc)
    return bc.check_pages([page], width=1280, log=lambda *_: None)[page]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_card_is_written_placed_and_served_from_the_cache_again(cache, tmp_path, capsys, monkeypatch):
    args = ["card", "tiny-llama", "--dtype", "float32", "--resamples", "99"]
    assert main([*args, "--out", str(tmp_path / "one")]) == 0
    out = capsys.readouterr().out
    card = read_results("card", tmp_path / "one", ValueCard)
    assert card.model == "tiny-llama" and card.kind == "standard" and len(card.placements) == 2
    assert len(card.foundation_placements) == 10 and len(card.agreement) == 10 and card.n_foundation_words == 200
    beyond = [p for p in card.foundation_placements if p.side != "among them"]
    assert f"moral foundations: {len(beyond)} of 10 foundation × valence ranks" in out
    assert f"most alike (Kendall τ on the Big Two nouns): {card.agreement[0].reference}" in out
    assert all(f"framing, {f.measure}: {f.estimate:+.2f}" in out for f in card.framing_placements) and len(card.framing) == 2
    assert all(f"frequency slope, {f.measure} prompts: {f.estimate:+.2f}" in out for f in card.exposure_placements)
    assert card.elo.n_items == 500 and card.elo.n_prompts == 3 and len(card.elo_reference) == 10
    assert f"EloEverything: Spearman ρ {card.elo.rho:.2f} with the human ratings, {card.elo_placement.side}" in out
    assert [i.direction for i in card.elo_items] == ["over"] * 5 + ["under"] * 5
    assert all(i.rank_diff > 0 for i in card.elo_items[:5]) and all(i.rank_diff < 0 for i in card.elo_items[5:])
    assert "EloEverything: valued most above people's ratings: " in out
    assert f"heterogeneity map: mean Kendall τ {card.map.mean_tau:.2f} with the paper RMs, " in out
    assert card.map.n_items == 500 and len(card.map.taus) == 10 and len(card.map.points) == 11
    assert "LM log-prob" in card.reward_kind  # an LM is an implicit reward, and the card says so
    for p in card.placements:
        assert f"{p.valence} prompts: gap {p.gap:+.1f}" in out and p.side in out
    md = (tmp_path / "one" / "card.md").read_text()
    assert md.startswith("## Value card: ") and "`tiny-llama`" in md
    assert _browser_check(tmp_path / "one" / "card.html") == []  # the chart draws offline, nothing reaches past the page
    _refuse_loading(monkeypatch)  # the same card again: every answer is in the cache
    assert main([*args, "--out", str(tmp_path / "two")]) == 0
    assert read_results("card", tmp_path / "two", ValueCard).placements == card.placements
    capsys.readouterr()
    assert main(["card", "diff", str(tmp_path / "one" / "card.json"), str(tmp_path / "two")]) == 0
    diff = capsys.readouterr().out
    assert diff.count("(+0)") == 32 and diff.count("within noise") == 12 and "OUTSIDE" not in diff
    # the quick card's four prompts are among the standard card's eighteen: served from the same cache
    assert main(["card", "tiny-llama", "--quick", "--dtype", "float32", "--out", str(tmp_path / "quick")]) == 0
    quick = read_results("card", tmp_path / "quick", ValueCard)
    assert quick.kind == "quick" and len(quick.prompts) == 4 and not quick.foundations and not quick.agreement
    assert "moral foundations" not in capsys.readouterr().out
    assert "Moral foundations" not in (tmp_path / "quick" / "card.md").read_text()
    assert main(["card", "diff", str(tmp_path / "quick"), str(tmp_path / "one")]) == 2
    assert "different things" in capsys.readouterr().err


def _random_rm(folder, seed):
    """A random-weights RM saved to a folder, as a researcher's freshly initialised one would be."""
    from rmlib.models.tiny import tiny_model

    model, tok = tiny_model("llama", head="rm", seed=seed)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)


def test_a_random_weights_rm_is_flagged_as_noise_and_two_seeds_diff_within_noise(cache, tmp_path, capsys):
    """#66 item 1, its "done when": a random-weights RM got a confident card (its gaps "communion side of every paper
    RM", its τ and ρ printed but never used to warn) and `card diff` called 9 of 12 numbers between two seeds
    "OUTSIDE the noise". Now the card runs rmlib check first and records it, its gaps' intervals cover words and
    prompts, it is flagged as indistinguishable from its null, and the two seeds' diff is within noise."""
    cards = []
    for seed in (0, 1):
        _random_rm(tmp_path / f"rm{seed}", seed)
        out_dir = tmp_path / f"card{seed}"
        assert main(["card", f"local:{tmp_path / f'rm{seed}'}", "--quick", "--dtype", "float32", "--resamples", "199",
                     "--label", f"random RM, seed {seed}", "--out", str(out_dir)]) == 0
        out = capsys.readouterr().out
        card = read_results("card", out_dir, ValueCard)
        assert card.null.indistinguishable and "**Indistinguishable from noise.**" in out
        assert card.null.tau_low <= card.null.null_tau_high and len(card.null.beyond) == card.null.n_shuffles
        assert card.label == f"random RM, seed {seed}" and card.provenance.weights.startswith("files-")
        assert card.provenance.dtype == "float32" and card.provenance.reader and len(card.provenance.data) >= 5
        assert {c.status for c in card.checks} & {"PASS", "FAIL"} and card.base_rate.n_numbers == 2
        assert all(len(g.draws) == 199 and g.ci_low < g.gap < g.ci_high for g in card.gaps)
        md = (out_dir / "card.md").read_text()
        assert "**Indistinguishable from noise.**" in md and "*Base rate.*" in md and "*Provenance.*" in md
        cards.append(out_dir)
    assert main(["card", "diff", str(cards[0]), str(cards[1])]) == 0
    diff = capsys.readouterr().out
    assert diff.count("within noise") == 2 and "OUTSIDE" not in diff
    assert "is indistinguishable from its null" in diff and "changed besides the numbers: weights" in diff


def test_a_failed_card_leaves_no_empty_folder(cache, tmp_path, capsys):
    """#66 item 9: a run that failed left its empty --out folder behind."""
    assert main(["card", "no-such-model", "--quick", "--out", str(tmp_path / "never")]) == 2
    assert "no-such-model" in capsys.readouterr().err and not (tmp_path / "never").exists()


def test_a_vocab_card_lists_the_extremes_of_each_prompts_whole_vocabulary_sweep(cache, tmp_path, capsys, monkeypatch):
    from rmbook.chapters.value_cards.analysis import VOCAB_K, VOCAB_PROMPTS
    from rmlib import engine
    from rmlib.models import LoadOptions

    assert main(["card", "tiny-llama", "--quick", "--vocab", "--dtype", "float32", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    card = read_results("card", tmp_path, ValueCard)
    _refuse_loading(monkeypatch)  # the sweeps the card made are in the cache, as the chapters' are
    sweeps = engine.token_reward_table(["tiny-llama"], VOCAB_PROMPTS, load=LoadOptions(dtype="float32"))
    assert card.vocab_size == len(sweeps) // 3 and len(card.vocab) == 3 * 2 * VOCAB_K
    for key, one in sweeps.groupby("prompt_key"):
        top = [t.token_id for t in card.vocab if t.prompt_key == key and t.side == "highest"]
        bottom = [t.reward for t in card.vocab if t.prompt_key == key and t.side == "lowest"]
        assert top == one.sort_values(["reward", "token_id"], ascending=[False, True])["token_id"].head(VOCAB_K).tolist()
        assert bottom == sorted(one["reward"])[:VOCAB_K]
        assert f"whole vocabulary ({card.vocab_size:,} tokens), {key}: rewarded most" in out
    assert "**The whole vocabulary.**" in (tmp_path / "card.md").read_text()


def test_what_the_card_cannot_do_is_said_plainly(cache, tmp_path, capsys):
    assert main(["card", "no-such-model", "--quick", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rmlib: error:") and "no-such-model" in err and not (tmp_path / "card.json").exists()
    assert main(["card", "diff", str(tmp_path)]) == 2 and "got 1 paths" in capsys.readouterr().err


def _card_files(folder):
    """card.json files that `rmlib card diff` must refuse: garbage, truncated, empty, a JSON list, an unhashed
    object, another type's results, and a card edited after it was written."""
    import json

    from rmlib.storage.records import HASH_FIELD, _digest

    def hashed(body):
        return json.dumps({**body, HASH_FIELD: _digest(body)})

    card = hashed({"schema": ValueCard.schema_tag(), "model": "tiny-llama", "label": "tiny"})
    texts = {"garbage": "\x00\x01 garbage", "truncated": card[:30], "empty": "", "list": "[1, 2]",
             "unhashed": json.dumps({"model": "x"}), "foreign": hashed({"schema": {"type": "Other", "version": 1}}),
             "edited": card.replace("tiny-llama", "tiny-qwen")}
    for case, text in texts.items():
        (folder / case).mkdir()
        (folder / case / "card.json").write_text(text)
    return {case: folder / case / "card.json" for case in texts}


def test_a_damaged_card_is_remade_by_the_card_command_not_a_chapter(cache, tmp_path, capsys):
    """#62: `rmlib card diff` on a garbage, truncated, empty, foreign or edited card.json said "rerun chapter 'card'
    (`rmlib book run card`)", a chapter that does not exist. It says to remake the card."""
    for case, path in _card_files(tmp_path).items():
        assert main(["card", "diff", str(path), str(path)]) == 2, case
        err = capsys.readouterr().err
        assert str(path) in err and "rmlib card MODEL" in err and "chapter 'card'" not in err, (case, err)
        assert "book run" not in err, case


def test_a_causal_lm_folder_is_told_to_use_the_head_flag_not_an_option_the_card_refuses(cache, tmp_path, capsys):
    """#62: `rmlib card local:<a causal LM>` said "Load it with head='lm', or pass allow_untrained_head=True": the
    Python spelling, and an option the card does not take (a card never scores a random head)."""
    from rmlib.models.tiny import tiny_model

    lm, tok = tiny_model("llama", head="lm")
    lm.save_pretrained(tmp_path / "lm")
    tok.save_pretrained(tmp_path / "lm")
    assert main(["card", f"local:{tmp_path / 'lm'}", "--quick", "--dtype", "float32", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--head lm" in err and "no trained reward head" in err
    assert "allow_untrained_head" not in err and "allow-untrained-head" not in err and "head='lm'" not in err


def test_an_lms_card_can_read_the_mean_log_prob_per_token_and_says_so(cache, tmp_path, capsys):
    """#66 item 5: an LM's card read its summed log-probability alone, which falls with the answer's length; `--reward
    per-token` reads its mean over the answer's tokens, and the card says which reward it used."""
    from rmbook.chapters.value_cards.analysis import big_two_gaps
    from rmbook.analysis.values import compute_value_scores
    from rmbook.chapters.value_cards.build import QUICK_PROMPTS
    from rmbook.chapters.value_cards.lm import per_token
    from rmlib.data.kinds import LM_MEAN_LOGPROB
    from rmlib.models import LoadOptions

    assert main(["card", "tiny-llama", "--quick", "--reward", "per-token", "--dtype", "float32", "--resamples", "99",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    card = read_results("card", tmp_path, ValueCard)
    assert card.reward_kind == LM_MEAN_LOGPROB and f"an implicit reward ({LM_MEAN_LOGPROB})" in out
    assert set(card.lm) >= {"length_positive_min", "frequency_negative_max"}
    summed = compute_value_scores(["tiny-llama"], "big2", prompt_keys=list(QUICK_PROMPTS), progress=False,
                                  load=LoadOptions(dtype="float32"))
    gaps = big_two_gaps(per_token(summed)).set_index("valence")["gap"]
    assert all(g.gap == pytest.approx(gaps[g.valence]) for g in card.gaps)
    md = " ".join((tmp_path / "card.md").read_text().split())
    assert "the mean log-probability of the answer's tokens under the prompt (`--reward per-token`)" in md
