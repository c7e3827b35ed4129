"""What the second-factor step's code POST costs (issue 28's goal; docs/strong-authentication.md, "What a second
factor costs"): its reads in one BatchGetItem, the code's acceptance and the session's rotation in one
TransactWriteItems, and what that transaction's conditions still refuse."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import (
    PAGE_HEADERS,
    Browser,
    Page,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.second_factor_support import (
    BOB,
    MFA,
    SCOPE,
    bob_code,
    factor_failures,
    give,
    password_session,
    wrong_code,
)
from tests.functional.token_support import TokenClient, body_of, claims_of

WRONG = ("The code is incorrect or was used already, or this account is temporarily locked after repeated failed "
         "attempts. Check it and try again in a moment.")


@contextmanager
def calls() -> Iterator[Counter[str]]:
    """Every DynamoDB call made inside, as "Operation Table" (a batch or transaction counts once per table)."""
    from authgate.aws import dynamodb

    seen: Counter[str] = Counter()

    def count(params: dict[str, Any], model: Any, **_: Any) -> None:
        tables = [params["TableName"]] if "TableName" in params else sorted(params.get("RequestItems") or [])
        tables += [next(iter(item.values()))["TableName"] for item in params.get("TransactItems") or []]
        seen.update(f"{model.name} {table.split('-')[-1]}" for table in tables)

    dynamodb().meta.events.register("provide-client-params.dynamodb", count)
    try:
        yield seen
    finally:
        dynamodb().meta.events.unregister("provide-client-params.dynamodb", count)


def step_page(browser: Browser) -> Page:
    password_session(browser, age=0)
    step = page_of(browser.get(web_params(**MFA)))
    assert step.status == 200 and "factor_ticket" in step.hidden()
    return step


def test_the_code_post_reads_once_and_writes_code_and_rotation_in_one_transaction(
        clock: ManualClock, browser: Browser, tokens: TokenClient) -> None:
    step = step_page(browser)
    with calls() as seen:
        result = give(browser, step, bob_code(clock))
    assert result["statusCode"] == 303, result["body"][:300]
    claims = claims_of(body_of(tokens.exchange(redirect_of(result).one("code")))["id_token"])
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (BOB, "mfa", ["mfa", "otp", "pwd"])
    # No ConsentsTable read (the step's page sealed whether bob approved before); one BatchGetItem (client, tenant,
    # session, user), one TransactWriteItems (the code's acceptance on bob's item,
    # the old session's delete, the new one's put), then the authorization code and the session's use.
    assert sorted(seen.items()) == sorted({
        "BatchGetItem ClientsTable": 1, "BatchGetItem TenantsTable": 1, "BatchGetItem SessionsTable": 1,
        "BatchGetItem UsersTable": 1, "TransactWriteItems UsersTable": 1, "TransactWriteItems SessionsTable": 2,
        "PutItem CodesTable": 1, "UpdateItem SessionsTable": 1}.items()), seen


def test_a_wrong_code_in_the_step_costs_one_counted_failure(clock: ManualClock, browser: Browser) -> None:
    step = step_page(browser)
    with calls() as seen:
        again = page_of(give(browser, step, wrong_code(clock)))
    assert again.status == 200 and {k: again.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert WRONG in again.text()
    assert factor_failures() == 1
    # The step's one BatchGetItem, then one UpdateItem that counts the failure on the second factor's throttle.
    assert sorted(seen.items()) == sorted({
        "BatchGetItem ClientsTable": 1, "BatchGetItem TenantsTable": 1, "BatchGetItem SessionsTable": 1,
        "BatchGetItem UsersTable": 1, "UpdateItem UsersTable": 1}.items()), seen


def test_a_right_code_overtaken_by_a_concurrent_failure_is_refused_and_counted(clock: ManualClock,
                                                                               browser: Browser) -> None:
    """Between the batch read and the transaction, another attempt's failure lands (a parallel guess): the
    transaction's condition on the failures read refuses the code, so a burst of guesses gets no more than one,
    and this attempt counts as a failure too. The session is not raised."""
    from authgate.aws import dynamodb
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    step = step_page(browser)
    secret = dict(part.split("=", 1) for part in (browser.cookie or "").split("; "))["authgate_session"]

    def parallel_guess(model: Any, **_: Any) -> None:
        if model.name == "TransactWriteItems":  # another attempt's failure, counted as the throttle counts one
            dynamodb().update_item(TableName=UserStore().table, Key={"tenant_id": {"S": "demo"}, "username": {"S": "bob"}},
                                   UpdateExpression="ADD factor_failures :one", ExpressionAttributeValues={":one": {"N": "1"}})

    dynamodb().meta.events.register("before-call.dynamodb", parallel_guess)
    try:
        again = page_of(give(browser, step, bob_code(clock)))
    finally:
        dynamodb().meta.events.unregister("before-call.dynamodb", parallel_guess)
    assert again.status == 200 and WRONG in again.text()
    assert factor_failures() == 2
    session = SessionStore().live(secret)
    assert session is not None and session.acr == "password"
    # The same code right after, with nothing in between: accepted (the step was never recorded).
    assert give(browser, step, bob_code(clock))["statusCode"] == 303


def test_a_plain_request_after_the_step_is_silent(clock: ManualClock, browser: Browser) -> None:
    step = step_page(browser)
    assert give(browser, step, bob_code(clock))["statusCode"] == 303
    assert browser.get(web_params(scope=SCOPE, nonce="n", acr_values="mfa"))["statusCode"] == 302


@pytest.mark.slow
def test_the_steps_page_knows_bobs_totp_from_the_reads_it_made(clock: ManualClock, browser: Browser) -> None:
    """Whether bob holds a one-time-code secret comes from his item as the request read it already (the session's
    batch read on GET, the throttle's reservation on the password POST): no GetItem of his factors."""
    password_session(browser, age=0)
    with calls() as seen:
        page = page_of(browser.get(web_params(**MFA)))
    assert page.status == 200 and "factor_ticket" in page.hidden()
    assert sorted(seen.items()) == sorted({
        "GetItem ClientsTable": 1, "BatchGetItem TenantsTable": 1, "BatchGetItem SessionsTable": 1,
        "BatchGetItem UsersTable": 1, "BatchGetItem ConsentsTable": 1}.items()), seen

    other = Browser(browser.invoke)
    form = page_of(other.get(web_params(**MFA, prompt="login")))
    with calls() as posted:
        step = page_of(other.post(list(form.hidden().items()) + [("username", "bob"), ("password", "bob-password"),
                                                                 ("code", ""), ("decision", "approve")]))
    assert step.status == 200 and "factor_ticket" in step.hidden()
    assert not posted["GetItem UsersTable"], posted


def step_buttons(page: Page) -> list[tuple[str, str]]:
    return [(str(b["name"]), str(b["value"])) for b in page.buttons if b.get("name")]


def forget_count(username: str = "bob") -> None:
    """The user's item as written before the count of passkeys existed (the attribute absent)."""
    from authgate.stores.user_items import key
    from authgate.stores.users import UserStore

    users = UserStore()
    users.db.update_item(TableName=users.table, Key=key("demo", username), UpdateExpression="REMOVE passkeys")


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
def test_the_steps_page_offers_passkeys_from_bobs_item_without_a_query(clock: ManualClock, browser: Browser) -> None:
    """On an issuer that can be a WebAuthn relying party the step offers "Use a passkey instead" when bob holds a
    passkey: whether he does is the count on his item, which the session's batch read already read (no Query of his
    passkeys), on the step-up's page, on the password POST's step page, and on the step shown again."""
    from tests.functional.passkey_support import enrolled

    password_session(browser, age=0)
    with calls() as seen:
        page = page_of(browser.get(web_params(**MFA)))
    assert page.status == 200 and step_buttons(page) == [], page.text()  # bob holds no passkey: a code only
    assert sorted(seen.items()) == sorted({
        "GetItem ClientsTable": 1, "BatchGetItem TenantsTable": 1, "BatchGetItem SessionsTable": 1,
        "BatchGetItem UsersTable": 1, "BatchGetItem ConsentsTable": 1}.items()), seen

    enrolled(clock, username="bob")
    with calls() as seen:
        page = page_of(browser.get(web_params(**MFA)))
    assert step_buttons(page) == [("use", "passkey")], page.text()
    assert not [call for call in seen if call.startswith("Query")], seen
    with calls() as seen:
        again = page_of(give(browser, page, wrong_code(clock)))
    assert WRONG in again.text() and step_buttons(again) == [("use", "passkey")]
    assert not [call for call in seen if call.startswith("Query")], seen

    other = Browser(browser.invoke)
    form = page_of(other.get(web_params(**MFA, prompt="login")))
    with calls() as posted:
        step = page_of(other.post(list(form.hidden().items()) + [("username", "bob"), ("password", "bob-password"),
                                                                 ("code", ""), ("decision", "approve")]))
    assert "factor_ticket" in step.hidden() and step_buttons(step) == [("use", "passkey")], step.text()
    assert not [call for call in posted if call.startswith("Query")], posted


@pytest.mark.usefixtures("localhost")
def test_an_item_without_the_count_falls_back_to_one_query(clock: ManualClock, browser: Browser) -> None:
    """bob's item written before the count existed: the step's page queries his passkeys, as it did before, and still
    offers the passkey he holds (and none when he holds none)."""
    from tests.functional.passkey_support import enrolled

    password_session(browser, age=0)
    forget_count()
    with calls() as seen:
        page = page_of(browser.get(web_params(**MFA)))
    assert page.status == 200 and "factor_ticket" in page.hidden() and step_buttons(page) == []
    assert seen["Query PasskeysTable"] == 1, seen

    enrolled(clock, username="bob")
    forget_count()
    with calls() as seen:
        page = page_of(browser.get(web_params(**MFA)))
    assert step_buttons(page) == [("use", "passkey")], page.text()
    assert seen["Query PasskeysTable"] == 1, seen
