"""rmlib.models.loading: unknown ids, models with their own code and LMs without a reward head are refused with clear errors."""
from __future__ import annotations

import pytest

from rmlib.models import ModelError, load_model


def test_unknown_model_and_remote_code_and_untrained_head_errors():
    with pytest.raises(ModelError, match="unknown model id"):
        load_model("no-such-model")
    from rmlib.registry import registry
    # rmlib implements ArmoRM's, QRM's and URM's heads itself: no paper RM asks for remote code any more
    assert [s.id for s in registry().values() if s.trust_remote_code] == []
    with pytest.raises(ModelError, match="not a reward model"):
        load_model("tiny-llama", head="rm")
    with pytest.raises(ModelError, match="no trained RM"):
        load_model("local:does-not-exist@step5")
