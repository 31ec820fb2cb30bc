"""The generated models: they must be exactly what the current OpenAPI documents generate (drift fails here), and
they read the API's answers (unknown fields ignored, so a field the server adds never breaks a client)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers import DEPOSIT_RESULT

from nap.models import data, live

REPO = Path(__file__).resolve().parents[3]


def test_the_committed_models_are_what_the_openapi_documents_generate():
    # Regenerates both modules into a temporary folder from documents built from the route declarations now, and
    # compares them with the committed ones (scripts/python/models.sh --check; `npm run sdk:python-models` fixes).
    result = subprocess.run(
        ["bash", str(REPO / "scripts/python/models.sh"), "--check"],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert result.stdout.strip().endswith("the Python models match the OpenAPI documents")


def test_the_installed_models_are_the_committed_ones():
    for module in (live, data):
        committed = REPO / "packages/python/src/nap/models" / Path(module.__file__).name
        assert Path(module.__file__).read_text() == committed.read_text()


def test_a_field_the_server_adds_is_ignored_not_refused():
    result = live.DepositResult.model_validate({**DEPOSIT_RESULT, "added_later": 1})
    assert result.block_number == 96
    assert not hasattr(result, "added_later")
