"""Schemathesis over the OpenAPI schema: generated requests (valid and invalid) to every operation;
no server error, and every response matches what the schema documents."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from shared_app import default_app

# Built at collection time (schemathesis.pytest.from_fixture fails under pytest 9), from the same
# app the `app` fixture returns.
schema = schemathesis.openapi.from_asgi("/openapi.json", default_app())


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case) -> None:
    case.call_and_validate(checks=[not_a_server_error, response_schema_conformance, status_code_conformance])
