"""A backchannel authentication request (OpenID Connect CIBA Core 1.0) driven through the token function, and
its approval as the approval page writes it (stores.backchannel_requests)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import SECRETS
from tests.document_server import DocumentServer
from tests.functional.authorize_support import Browser, Page
from tests.functional.token_support import (
    OK_HEADERS,
    TokenClient,
    allow_grant,
    basic,
    body_of,
    headers_of,
)

CIBA = "urn:openid:params:grant-type:ciba"
CLIENT = "demo-web"
BOB_ID = "usr_demobob000000000000000"


def allow_ciba(client_id: str = CLIENT) -> None:
    """What `authgate clients update CLIENT --grant ciba` writes."""
    allow_grant(client_id, CIBA)


def start(tokens: TokenClient, client_id: str = CLIENT, **fields: str) -> dict[str, Any]:
    """POST /oauth/backchannel as `client_id` (Basic): scope openid and login_hint bob unless told."""
    form = {"scope": "openid charges:read", "login_hint": "bob", **fields}
    sent = [(name, value) for name, value in form.items() if value != ""]
    return tokens.post(sent, path="/oauth/backchannel", auth=basic(client_id, SECRETS[client_id]))


def started(result: dict[str, Any], expires_in: int = 300) -> str:
    """The auth_req_id of a whole 200 answer (CIBA 7.3)."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], headers, sorted(body)) == (
        200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"},
        ["auth_req_id", "expires_in", "interval"])
    assert (body["expires_in"], body["interval"], len(body["auth_req_id"])) == (expires_in, 5, 43)
    return str(body["auth_req_id"])


def poll(tokens: TokenClient, auth_req_id: str, client_id: str = CLIENT) -> dict[str, Any]:
    return tokens.post([("grant_type", CIBA), ("auth_req_id", auth_req_id)], auth=basic(client_id, SECRETS[client_id]))


def decide(auth_req_id: str, *, approved: bool = True, user_id: str = BOB_ID, auth_time: int = 0) -> bool:
    """What the approval page writes once the user signed in at mfa and pressed Approve (or Deny)."""
    from authgate import clock
    from authgate.approvals.backchannel_request import key_of
    from authgate.single_use.authentication import Authentication
    from authgate.stores.backchannel_requests import BackchannelRequestStore

    signed_in = Authentication(user_id, auth_time or clock.seconds(), "mfa", ("pwd", "otp", "mfa"))
    return BackchannelRequestStore().decide(key_of(auth_req_id), "bob", signed_in, approved=approved)


BOB_TOTP = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # the demo seed's bob (RFC 6238's published test key)


class ApprovalBrowser(Browser):
    """The Browser of the authorize function on /oauth/approve: the approval link's page and its form."""

    def open(self, url: str) -> dict[str, Any]:
        query = url.split("?", 1)[1] if "?" in url else ""
        request = HttpRequest("GET", "/oauth/approve", query, self._headers())
        result = self.invoke("authorize", build_event(request, resource="/oauth/approve", path_params=None))
        self.keep_cookies(result)
        return result

    def decide(self, page: Page, decision: str = "approve", **fields: str) -> dict[str, Any]:
        sent = [*page.hidden().items(), *fields.items(), ("decision", decision)]
        request = HttpRequest("POST", "/oauth/approve", "",
                              self._headers([("Content-Type", "application/x-www-form-urlencoded")]),
                              urlencode(sent).encode())
        return self.invoke("authorize", build_event(request, resource="/oauth/approve", path_params=None))


def webhook_of(tenant_id: str, url: str) -> None:
    """What `authgate tenants update TENANT --approval-webhook URL` writes."""
    from authgate import caches
    from authgate.stores.tenants import TenantStore

    store = TenantStore()
    tenant = store.get(tenant_id)
    assert tenant is not None
    store.replace(tenant._replace(approval_webhook=url))
    caches.reset()


def one_time_code(at: int) -> str:
    import pyotp

    return str(pyotp.TOTP(BOB_TOTP).at(at))


def assert_tokens(result: dict[str, Any], scope: str = "openid charges:read") -> dict[str, Any]:
    """A whole 200 token response of an approved request (CIBA 10.2): access, ID and refresh tokens."""
    sent = headers_of(result)
    assert sent.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], sent, sorted(body)) == (
        200, OK_HEADERS, ["access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"])
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 900, scope)
    return body


def deliver_queued() -> int:
    """One receive of the local stack's poller: the deliver function's handler on what is queued; how many came."""
    from authgate import aws
    from authgate.settings import get_settings
    from authgate_cli.local.deliveries import DeliveryPoller

    return DeliveryPoller(aws.sqs(), get_settings().deliveries_queue).poll_once()


def queued_record(kind: str = "approval_webhook") -> dict[str, Any]:
    """The one queued message of `kind` as the SQS event source hands it to the deliver function (first receive)."""
    from authgate import aws
    from authgate.settings import get_settings

    answer = aws.sqs().receive_message(QueueUrl=get_settings().deliveries_queue, MaxNumberOfMessages=10,
                                       VisibilityTimeout=0)
    (message,) = [m for m in answer["Messages"] if json.loads(m["Body"])["kind"] == kind]
    return {"messageId": message["MessageId"], "body": message["Body"], "attributes": {"ApproximateReceiveCount": "1"}}


def delivered(hook: DocumentServer) -> tuple[dict[str, Any], bytes, str]:
    """The queued webhook and mail, sent by the deliver function (the local stack's poller): the webhook's payload,
    body and signature."""
    assert deliver_queued() == 2
    assert [(path, kind) for path, kind, _ in hook.posts] == [("/hook", "application/json")]
    body = hook.posts[0][2]
    return json.loads(body), body, hook.post_headers[0]["Authgate-Signature"]
