"""rmbook.book.parameter_check: undeclared parameters, values outside the choices and values of the wrong type are refused."""
from __future__ import annotations

import re

from papermill.translators import translate_parameters
import pytest

from rmbook.book import ParameterError, check_parameters


def _injected(values: dict) -> str:
    return translate_parameters("python3", "python", values, "Parameters")  # exactly what papermill injects


def _history(params: str, *injected: str) -> list[str]:
    return ["", "import os", params, *injected, "check_parameters()"]


PARAMS = ('MODE = "published"  # a comment\nMODELS = ["a", "b"]\nN = 400\nRATE = 0.5\nFLAG = False\nPATH = None\n'
          'PROMPT_TEXTS = ["Why?"]\n')


@pytest.mark.parametrize("values, message", [
    ({"N": "400"}, "N='400' should be an integer"),
    ({"N": 2.5}, "N=2.5 should be an integer"),
    ({"RATE": "0.1"}, "RATE='0.1' should be a number"),
    ({"FLAG": 1}, "FLAG=1 should be True or False"),
    ({"MODELS": "a,b"}, "MODELS='a,b' should be a list"),
    # #62: the hint named only papermill's -y, which `rmlib book run` (and make chapter) does not have
    ({"MODELS": "x/y"}, re.escape("""`rmlib book run ... -p MODELS '["..."]'`, or papermill's -y 'MODELS: [...]'""")),
    ({"MODE": "both"}, "MODE='both': choose one of"),
    ({"MOEDLS": ["x"]}, "MOEDLS is not a parameter of this chapter \\(did you mean MODELS\\?\\)"),
    ({"mode": "compute"}, "mode is not a parameter of this chapter \\(did you mean MODE\\?\\)"),
    ({"PROMPTS": ["x"]}, "PROMPTS is not a parameter of this chapter \\(renamed PROMPT_TEXTS\\)"),
])
def test_check_parameters_catches(values, message):
    ns = {}
    injected = _injected(values)
    exec(PARAMS, ns)
    exec(injected, ns)
    with pytest.raises(ParameterError, match=message):
        check_parameters(ns, history=_history(PARAMS, injected), MODE=["published", "compute"])


def test_check_parameters_accepts_good_values_none_and_papermills_own_names():
    ns = {}
    injected = _injected({"N": None, "RATE": 3, "MODELS": ["x"], "PATH": "out.json", "pm": {"run_uuid": "1"}})
    exec(PARAMS, ns)
    exec(injected, ns)
    check_parameters(ns, history=_history(PARAMS, injected), MODE=["published", "compute"])


def test_check_parameters_must_follow_the_parameters_cell():
    with pytest.raises(ParameterError, match="right after the chapter's parameters cell"):
        check_parameters({}, history=["", PARAMS, "x = compute()", "check_parameters()"])
    with pytest.raises(ParameterError, match="declares no MOD"):
        check_parameters({"MODE": "published"}, history=_history(PARAMS), MOD=["a"])


def test_a_parameters_cell_that_starts_like_papermills_comment_is_still_the_parameters_cell():
    params = "# Parameters\nMODE = 'published'\n"
    check_parameters({"MODE": "published"}, history=["", params, "check_parameters()"], MODE=["published"])
    injected = _injected({"MODE": "compute"})
    with pytest.raises(ParameterError, match="MODE='compute'"):
        check_parameters({"MODE": "compute"}, history=["", params, injected, "check()"], MODE=["published"])


@pytest.mark.parametrize("value, shown", [(float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_a_non_finite_number_is_named_not_taken_for_a_misplaced_call(value, shown):
    """`-y 'RATE: .nan'`: papermill injects RATE = float('nan'); issue #24 item 14 (it said 'must run in the cell
    right after the parameters cell')."""
    ns = {}
    injected = _injected({"RATE": value})
    assert "float(" in injected
    exec(PARAMS, ns)
    exec(injected, ns)
    with pytest.raises(ParameterError, match=rf"RATE={shown} should be a finite number, like its default 0.5"):
        check_parameters(ns, history=_history(PARAMS, injected), MODE=["published", "compute"])


@pytest.fixture
def no_trust():
    from rmlib.models import trust_remote_code
    trust_remote_code([])
    yield
    trust_remote_code([])


def test_trust_remote_code_is_handed_to_the_loader_only_when_given(no_trust):
    """#43 item 7: a chapter's TRUST_REMOTE_CODE names the models whose own code may run; the default trusts none,
    and a chapter without the parameter changes nothing."""
    from rmlib.models import trusted_models

    params = PARAMS + "TRUST_REMOTE_CODE = []\n"
    for values, expected in (({}, []), ({"MODELS": ["a", "local:/my/rm"], "TRUST_REMOTE_CODE": ["local:/my/rm"]},
                                        ["local:/my/rm"])):
        ns, injected = {}, _injected(values) if values else None
        exec(params, ns)
        if injected:
            exec(injected, ns)
        check_parameters(ns, history=_history(params, *([injected] if injected else [])))
        assert trusted_models() == expected
    ns = {}
    exec(PARAMS, ns)
    check_parameters(ns, history=_history(PARAMS))
    assert trusted_models() == ["local:/my/rm"]  # a chapter without the parameter leaves the list alone
    bad = _injected({"TRUST_REMOTE_CODE": "local:/my/rm"})
    ns = {}
    exec(params, ns)
    exec(bad, ns)
    with pytest.raises(ParameterError, match="TRUST_REMOTE_CODE='local:/my/rm' should be a list"):
        check_parameters(ns, history=_history(params, bad))


def test_every_chapter_that_loads_its_models_declares_trust_remote_code():
    """A chapter that takes MODELS and loads them declares TRUST_REMOTE_CODE, so a model with its own code can be
    rerun there (about shows published RMs only and loads none)."""
    import ast
    import json

    from rmbook.book.chapters import NOTEBOOKS

    missing = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        params = next(("".join(c["source"]) for c in cells if "parameters" in c["metadata"].get("tags", [])), "")
        names = {t.id for n in ast.parse(params).body if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name)}
        if "MODELS" in names and "TRUST_REMOTE_CODE" not in names and path.stem != "about":
            missing.append(path.stem)
    assert missing == []


def _checked(params: str, values: dict, **choices):
    ns, injected = {}, _injected(values)
    exec(params, ns)
    exec(injected, ns)
    check_parameters(ns, history=_history(params, injected), **choices)


def test_trust_remote_code_must_name_a_model_of_the_run(no_trust):
    """#62: `-p TRUST_REMOTE_CODE '["x/y"]'` with an id not in MODELS ran (exit 0) and trusted code no model of the
    run has: a misspelt id, or one left from another run. The id and the MODELS it is not in are named."""
    from rmlib.models import trusted_models

    params = 'MODELS = ["tiny-llama"]\nTRUST_REMOTE_CODE = []\nPOLICY = "tiny-qwen2"\n'
    with pytest.raises(ParameterError, match=r"TRUST_REMOTE_CODE names 'x/y', which is not in MODELS "
                                             r"\['tiny-llama', 'org/rm'\]"):
        _checked(params, {"MODELS": ["tiny-llama", "org/rm"], "TRUST_REMOTE_CODE": ["org/rm", "x/y"]})
    assert trusted_models() == []
    _checked(params, {"MODELS": ["tiny-llama", "org/rm"], "TRUST_REMOTE_CODE": ["org/rm"]})
    assert trusted_models() == ["org/rm"]
    _checked(params, {"POLICY": "org/lm", "TRUST_REMOTE_CODE": ["org/lm"]})  # a model the chapter loads by another name
    _checked(params, {"MODELS": ["S-Gem-27B"], "TRUST_REMOTE_CODE": ["Skywork/Skywork-Reward-Gemma-2-27B"]})  # its nickname
    _checked(params, {"MODELS": None, "TRUST_REMOTE_CODE": ["org/rm"]})  # the chapter's own choice: not known here


@pytest.mark.parametrize("tokens", [300, [0, 300]])
def test_tokens_in_published_mode_is_refused_naming_the_mode(tokens):
    """#62: TOKENS with MODE published was taken, changed nothing (published scores sweep no vocabulary), and got a
    rerun page of its own."""
    params = 'MODE = "published"\nTOKENS = None\n'
    modes = ["published", "compute", "both"]
    with pytest.raises(ParameterError, match=rf"TOKENS={tokens!r} applies only when MODE is 'compute' or 'both'; this "
                                             r"run's MODE is 'published'".replace("[", r"\[").replace("]", r"\]")):
        _checked(params, {"TOKENS": tokens}, MODE=modes)
    _checked(params, {"TOKENS": tokens, "MODE": "both"}, MODE=modes)
    _checked(params, {"TOKENS": None}, MODE=modes)
