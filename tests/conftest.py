from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


# One Hypothesis profile for every run, chosen here and not by the environment: a fresh clone, a developer's
# machine and CI (where Hypothesis would otherwise pick its own "ci" profile from CI=true) behave the same.
# Derandomized so a red run is reproducible; no deadline and no too_slow check because a loaded 2-core
# machine is slow on the first examples while strategies warm up, which is not a property of the code.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("gpu-npd", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("gpu-npd")
