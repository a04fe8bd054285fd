"""``rmlib check`` (rmlib.engine.preflight): every check passes on healthy tiny models and the embedded SmolLM2, and
each one fails on a model built to break it (a date-stamping template, a doubled BOS, a stray eos, a pad id at the
read position, a shared-prefix kernel that is wrong), with the exit status of the command."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import rmlib.engine.token_sweep as sweep_mod
import rmlib.models.tiny as tiny
from rmlib.cli import main
from rmlib.engine.preflight import format_table, has_failure, preflight, spread_ids, tolerance
from rmlib.models import load_model

CHECKS = ["model loads", "one BOS", "pad/eos in sequence", "no date stamp", "shared prefix = full",
          "batch invariance", "speed / ETA"]
PROMPT = "What, in one word, is the greatest thing ever?"
RM = ["--head", "rm", "--allow-untrained-head", "--dtype", "float32"]


def _tiny_rm(family="llama", dtype="float32"):
    return load_model(f"tiny-{family}", head="rm", dtype=dtype, allow_untrained_head=True)


def _by_name(results):
    return {r.check: r for r in results}


def _with_template(monkeypatch, family, change):
    """The tiny family's tokenizer built with ``change(template)`` as its chat template (what loading reads)."""
    style = tiny.FAMILY_STYLE[family]
    specials, template, *rest = tiny._STYLES[style]
    monkeypatch.setitem(tiny._STYLES, style, (specials, change(template), *rest))


@pytest.mark.parametrize("family", ["llama", "gemma2"])
def test_every_check_passes_on_a_tiny_rm_in_float32(family):
    results = preflight(_tiny_rm(family))
    got = _by_name(results)
    assert [r.check for r in results] == CHECKS
    assert {r.check: r.status for r in results} == {**{c: "PASS" for c in CHECKS}, "speed / ETA": "INFO"}
    assert got["model loads"].values["reader"] == "logits0" and got["model loads"].values["head"] == "rm"
    assert "UNTRAINED" in got["model loads"].detail
    for name in ("shared prefix = full", "batch invariance"):
        v = got[name].values
        assert v["tol_sd"] == 1e-3 and 0 < v["diff_sd"] < 1e-4 and v["sd"] > 0.1  # measured: <= 1.5e-5 sd
    speed = got["speed / ETA"].values
    assert speed["tokens_per_s"] > 0 and speed["vocab"] == 320
    assert speed["eta_s"] == pytest.approx(speed["vocab"] / speed["tokens_per_s"])
    assert not has_failure(results)


def test_a_bf16_model_is_checked_again_in_float32_and_keeps_every_bit():
    """#40 item 3: bf16 rounding alone moves scores by up to half an sd, so the bf16 rows only keep rounding from
    failing; the float32 rows, on the same weights, are the ones that can see a kernel error."""
    lm = _tiny_rm("llama", "bfloat16")
    before = {k: v.clone() for k, v in lm.model.state_dict().items()}
    results = preflight(lm)
    got = _by_name(results)
    assert [r.check for r in results] == [*CHECKS[:6], "shared prefix = full (float32)", "batch invariance (float32)",
                                          CHECKS[6]]
    v = got["shared prefix = full"].values
    assert v["tol_sd"] == tolerance(torch.bfloat16) == 1.0 and v["dtype"] == "bfloat16"
    assert 1e-3 < v["diff_sd"] <= 1.0  # bf16 rounding, which a 0.1 sd error could hide in
    assert got["shared prefix = full"].status == "PASS" and "float32 rows test the kernels" in got[
        "shared prefix = full"].detail
    f32 = got["shared prefix = full (float32)"]
    assert f32.status == "PASS" and f32.values["dtype"] == "float32" and f32.values["diff_sd"] < 1e-4
    assert got["batch invariance (float32)"].status == "PASS"
    assert lm.dtype == torch.bfloat16 and all(torch.equal(before[k], t) and before[k].dtype == t.dtype
                                              for k, t in lm.model.state_dict().items())
    assert not has_failure(results)


def test_the_float32_rows_say_why_when_the_weights_would_not_fit(monkeypatch):
    import rmlib.engine.agreement as agreement
    monkeypatch.setattr(agreement, "_free_bytes", lambda device: 1024)
    got = _by_name(preflight(_tiny_rm("llama", "bfloat16")))
    row = got["shared prefix = full (float32)"]
    assert row.status == "SKIP" and "do not fit where the model is (cpu:" in row.detail
    assert "cannot see a kernel error below 1 sd" in row.detail


def test_tolerances_per_dtype():
    assert tolerance(torch.float32) == 1e-3
    assert tolerance(torch.float16) == 0.1
    assert tolerance(torch.bfloat16) == 1.0


def _planted(monkeypatch, sd: float):
    """The shared-prefix kernel off by 0.1 sd of the scores on every other candidate."""
    real = sweep_mod.rm_scores_shared

    def off(lm, kv, prefix_len, new_seqs, *args, **kwargs):
        out = real(lm, kv, prefix_len, new_seqs, *args, **kwargs)
        return out + 0.1 * sd * (torch.arange(len(out), device=out.device) % 2)

    monkeypatch.setattr(sweep_mod, "rm_scores_shared", off)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_planted_disagreement_of_a_tenth_of_an_sd_fails_the_check(dtype, monkeypatch):
    """#40 item 3: the old bound, 12.5% of max|score| in bf16, passed a third of an sd."""
    lm = _tiny_rm("llama", dtype)
    sd = float(np.std(sweep_mod.sweep(lm, PROMPT, tokens=spread_ids(lm, 64), method="full", cache=False,
                                      progress=False).frame.score))
    _planted(monkeypatch, sd)
    results = preflight(lm)
    got = _by_name(results)
    name = "shared prefix = full" + ("" if dtype == "float32" else " (float32)")
    assert got[name].status == "FAIL" and 0.05 < got[name].values["diff_sd"] < 0.2
    assert has_failure(results)


def test_the_candidates_spread_over_the_whole_vocabulary():
    ids = spread_ids(_tiny_rm(), 64)
    assert len(ids) == 64 and ids[0] == 0 and ids[-1] == 319 and ids == sorted(set(ids))


def test_the_command_prints_one_table_and_exits_0(capsys, tmp_path):
    out_json = tmp_path / "check.json"
    assert main(["check", "tiny-gemma2", *RM, "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].split() == ["check", "result", "detail"]
    assert [c for c in CHECKS if any(line.startswith(c + " ") for line in lines)] == CHECKS
    assert "FAIL" not in out
    saved = json.loads(out_json.read_text())
    assert saved["failed"] is False and [c["check"] for c in saved["checks"]] == CHECKS


def _stamping(monkeypatch):
    _with_template(monkeypatch, "llama", lambda t: t.replace(
        "{{ bos_token }}", "{{ bos_token }}<|start_header_id|>system<|end_header_id|>\n\n"
                           "Today Date: {{ strftime_now('%d %b %Y') }}<|eot_id|>", 1))


def test_a_template_that_stamps_the_date_is_reported_and_keyed_on_the_rendered_ids(monkeypatch, capsys):
    _stamping(monkeypatch)
    assert main(["check", "tiny-llama", *RM]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("no date stamp"))
    assert row.split()[3] == "PASS" and "stamps today's date" in row
    assert _by_name(preflight(_tiny_rm()))["no date stamp"].values == {"stamped": True, "in_key": True}


def test_a_sweep_under_a_date_stamping_template_is_not_served_on_another_day(monkeypatch, tmp_path):
    """Before: the key hashed the template's source, so a sweep cached on one day was served for the conversation
    that another day's date renders (Llama-3.2 templates call strftime_now)."""
    from rmlib.engine import score_answers, sweep
    from rmlib.engine.preflight import _CLOCKS, _clock

    _stamping(monkeypatch)
    lm = _tiny_rm()
    keys, answer_keys = [], []
    for moment in _CLOCKS:
        with _clock(moment):
            keys.append(sweep(lm, PROMPT, tokens=range(8), cache_root=tmp_path, progress=False).meta["key"])
            answer_keys.append(score_answers(lm, [PROMPT], ["love"], cache_root=tmp_path / "a",
                                             progress=False).attrs["rmlib"]["key"])
    assert keys[0] != keys[1] and answer_keys[0] != answer_keys[1]


def test_a_fixed_date_string_default_renders_the_same_every_day(monkeypatch):
    _with_template(monkeypatch, "llama", lambda t: t.replace(
        "{{ bos_token }}", "{% if not date_string is defined %}{% set date_string = '26 Jul 2024' %}{% endif %}"
                           "{{ bos_token }}<|start_header_id|>system<|end_header_id|>\n\n"
                           "Today Date: {{ date_string }}<|eot_id|>", 1))
    date = _by_name(preflight(_tiny_rm()))["no date stamp"]
    assert date.status == "PASS" and "26 Jul 2024" in date.detail and date.values["stamped"] is False


def test_a_doubled_bos_fails(monkeypatch):
    _with_template(monkeypatch, "llama", lambda t: t.replace("{% for m in messages %}",
                                                             "{% for m in messages %}{{ bos_token }}"))
    got = _by_name(preflight(_tiny_rm()))
    assert got["one BOS"].status == "FAIL" and got["one BOS"].values["n_bos"] == 2
    assert got["pad/eos in sequence"].status == "PASS"


def test_an_eos_after_the_turn_end_fails(monkeypatch):
    _with_template(monkeypatch, "gemma2", lambda t: t + "{{ eos_token }}")
    results = preflight(_tiny_rm("gemma2"))
    check = _by_name(results)["pad/eos in sequence"]
    assert check.status == "FAIL" and "'<eos>'" in check.detail and has_failure(results)
    assert check.values["suffix"][-1] in check.values["eos_ids"]


def test_a_pad_id_at_the_read_position_fails():
    lm = _tiny_rm()
    lm.tokenizer.pad_token = "<|eot_id|>"  # Llama-3's turn end, where rmlib reads the score
    lm.model.config.pad_token_id = lm.tokenizer.pad_token_id
    check = _by_name(preflight(lm))["pad/eos in sequence"]
    assert check.status == "FAIL" and "read position" in check.detail


def test_a_pad_id_inside_the_conversation_but_not_read_warns():
    lm = _tiny_rm("gemma2")
    lm.tokenizer.pad_token = "<end_of_turn>"  # the turn end; Gemma's read position is the newline after it
    lm.model.config.pad_token_id = lm.tokenizer.pad_token_id
    check = _by_name(preflight(lm))["pad/eos in sequence"]
    assert check.status == "WARN" and "FIRST pad" in check.detail


def test_a_wrong_shared_prefix_kernel_fails_both_agreement_checks(monkeypatch):
    real = sweep_mod.rm_scores_shared

    def off_by_batch(lm, kv, prefix_len, new_seqs, *args, **kwargs):  # an error that depends on the batch
        return real(lm, kv, prefix_len, new_seqs, *args, **kwargs) + 0.01 * len(new_seqs)

    monkeypatch.setattr(sweep_mod, "rm_scores_shared", off_by_batch)
    results = preflight(_tiny_rm())
    got = _by_name(results)
    assert got["shared prefix = full"].status == "FAIL" and got["batch invariance"].status == "FAIL"
    assert got["shared prefix = full"].values["max_abs"] == pytest.approx(0.64, abs=1e-3)
    assert has_failure(results) and "FAIL" in format_table(results)


def test_a_model_that_does_not_load_is_one_failed_row(capsys):
    results = preflight("tiny-nothing")
    assert [(r.check, r.status) for r in results] == [("model loads", "FAIL")]
    assert main(["check", "tiny-nothing", "--dtype", "float32"]) == 1
    assert "model loads" in capsys.readouterr().out


def test_the_embedded_smollm2_lm(smollm2_lm):
    """A real tokenizer: its bos_token <|im_start|> opens every turn (it prepends none), and pad = eos = <|im_end|>,
    the turn end; an LM's checks are the template's, and one timed full-vocabulary sweep."""
    got = _by_name(preflight(smollm2_lm))
    assert list(got) == CHECKS
    assert got["model loads"].values["head"] == "lm" and got["model loads"].values["reader"] is None
    bos = got["one BOS"]
    assert bos.status == "PASS" and bos.values == {"n_bos": 3, "prepends": False}
    pad = got["pad/eos in sequence"]
    assert pad.status == "PASS" and pad.values["turn_end"] == 2
    assert pad.values["eos_ids"] == pad.values["pad_ids"] == [2]
    assert got["no date stamp"].status == "PASS"
    assert got["shared prefix = full"].status == got["batch invariance"].status == "SKIP"
    speed = got["speed / ETA"].values
    assert speed["vocab"] == speed["timed_tokens"] == 49152 and speed["tokens_per_s"] > 0
    assert np.isfinite(speed["eta_s"])


@pytest.mark.embedded
def test_the_real_kernels_pass_on_smollm2_as_an_rm_in_bf16_and_in_float32():
    """#40 item 3: the bounds do not fail the correct kernels on a real 30-layer model (a fresh head: arithmetic)."""
    lm = load_model("smollm2-135m-instruct", head="rm", dtype="bfloat16", allow_untrained_head=True)
    got = _by_name(preflight(lm, n_tokens=32, timing_tokens=16))  # 32 candidates: a 30-layer model costs
    for name in ("shared prefix = full", "batch invariance", "shared prefix = full (float32)",
                 "batch invariance (float32)"):
        assert got[name].status == "PASS", got[name].detail
    assert got["shared prefix = full (float32)"].values["diff_sd"] < 1e-4
