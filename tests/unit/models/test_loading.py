"""rmlib.models.loading: unknown ids, models with their own code and LMs without a reward head are refused with clear errors."""
from __future__ import annotations

import pytest

from rmlib.models import ModelError, RemoteCodeError, load_model


def test_unknown_model_and_remote_code_and_untrained_head_errors():
    with pytest.raises(ModelError, match="unknown model id"):
        load_model("no-such-model")
    with pytest.raises(RemoteCodeError, match="trust_remote_code=True"):
        load_model("RLHFlow/ArmoRM-Llama3-8B-v0.1")
    with pytest.raises(ModelError, match="not a reward model"):
        load_model("tiny-llama", head="rm")
    with pytest.raises(ModelError, match="no trained RM"):
        load_model("local:does-not-exist@step5")
