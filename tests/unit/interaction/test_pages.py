"""interaction.pages: every form's CSRF fields name its step, which the token seals; a POST is dispatched on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.errors import ApiError
from authgate.interaction.pages import csrf_state, form_fields, posted_step, step_of
from tests.unit.interaction.conftest import PageRequest

STALE = "The form has expired or was altered. Open it again."
TABLE = {"code": "the code's step", "decision": "the decision's step"}


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "unit-test-session-secret-0123456789")
    caches.reset()
    yield
    caches.reset()


def shown(page_request: PageRequest, step: str) -> tuple[list[tuple[str, str]], str]:
    """A page's CSRF fields for a form of `step`, and the binding cookie it sets (name=value)."""
    state, cookie = csrf_state(page_request(), step)
    assert cookie is not None
    return state, cookie.split(";", 1)[0]


def test_the_nonce_names_the_step_and_the_posted_form_is_dispatched_on_it(page_request: PageRequest) -> None:
    state, cookie = shown(page_request, "decision")
    assert [name for name, _ in state] == ["nonce", "csrf"] and state[0][1].startswith("decision.")
    fields, handler = posted_step(page_request([*state, ("decision", "approve")], cookie), TABLE)
    assert (step_of(fields), handler, fields["decision"]) == ("decision", "the decision's step", "approve")


def test_a_step_the_route_does_not_take_is_the_stale_form(page_request: PageRequest) -> None:
    state, cookie = shown(page_request, "factor")
    for refused in (lambda: posted_step(page_request(state, cookie), TABLE),
                    lambda: form_fields(page_request(state, cookie), "code", "decision")):
        with pytest.raises(ApiError) as info:
            refused()
        assert (info.value.code, info.value.status, info.value.detail) == ("invalid_request", 400, STALE)
    assert step_of(form_fields(page_request(state, cookie), "factor")) == "factor"


def test_a_step_written_into_another_forms_nonce_breaks_its_csrf_token(page_request: PageRequest) -> None:
    state, cookie = shown(page_request, "code")
    nonce = state[0][1].replace("code.", "decision.", 1)
    with pytest.raises(ApiError) as info:
        posted_step(page_request([("nonce", nonce), state[1]], cookie), TABLE)
    assert (info.value.code, info.value.detail) == ("invalid_request", STALE)


def test_a_nonce_without_a_step_names_none() -> None:
    assert (step_of({}), step_of({"nonce": "abcdef"}), step_of({"nonce": "account.x.y"})) == ("", "", "account")
