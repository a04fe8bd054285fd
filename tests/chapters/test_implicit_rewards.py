"""The implicit-rewards chapter on tiny LMs: logits vs log-probs, MWLR pseudo-models, no claim about base vs instruct."""
from __future__ import annotations


def test_implicit_rewards_chapter(chapter):
    c = chapter("implicit_rewards")
    out, text = c.results, c.markdown
    assert out["logits"]["min_tau"] > 0.9999                   # logits and log-probs rank alike within a model
    assert all(e["verdict"].startswith("unknown") for e in out["instruct_evidence"])   # tiny models: no claim
    models = {r["model"] for r in out["big2"]}
    assert len(models) == 6 and sum(m.startswith("MWLR(") for m in models) == 3
    assert len(out["big2"]) == 12 and out["mfd2"]["n_panels"] == 6 * 5 * 2
    assert "Families with both a base and an instruct model here: **none**" in text
    # the sentences are rendered from the sections stored with the numbers (#26 item 2)
    assert not {"within_min_tau", "zipf_lm_top", "zipf_rm_top"} & set(out)  # each number once (#26)
    assert out["design"]["n_prompts"] == 4 and "Design prompts: 4 of the 54 prompts" in text
    assert set(out["lexicons"]) == {"big2", "mfd2"} and len(out["big2_contrasts"]["rows"]) == len(out["big2"])
    assert out["mfd2"]["n_positive"] + out["mfd2"]["n_negative"] == out["mfd2"]["n_panels"]
    assert "words rank higher (mean rank" in text and "panels (model × foundation × valence)" in text
    assert out["zipf"]["rm_top"] > 0
    gl = out["mwlr_gemma_llama"]  # the Gemma-vs-Llama implicit reward, positive prompts, for the claims page
    assert gl["model"] == "MWLR(tiny-gemma3‖tiny-llama)" and 0 <= gl["p_fdr"] <= 1
