"""Backchannel authentication requests (CIBA Core 1.0 7.3, 10, 11) in CodesTable, keyed `ciba#` + SHA-256 of the auth_req_id.

A kind of item of CodesTable rather than a table of its own: like a code or a pushed request it
lives minutes, is redeemed once by one conditional write and expires by TTL (expires_at), so it
needs nothing a new table would add but another resource to provision and grant. Every poll is
ONE conditional UpdateItem, stores.polls' (authgate.polling's rule, shared with the device grant): while the request is
pending and polled no sooner than `next_poll_at` (a second of leeway) it moves that to one interval
from now (authorization_pending); otherwise the item as it was (ALL_OLD) says why.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from authgate import clock
from authgate.approvals.backchannel_request import (
    BackchannelRequest,
    from_item,
    key_of,
    link_key_of,
    to_item,
)
from authgate.approvals.errors import (
    LinkInvalid,
    PolledTooFast,
    PollRefused,
    RequestDenied,
    RequestExpired,
    RequestPending,
    RequestUnknown,
)
from authgate.polling import APPROVED, DENIED, PENDING, REDEEMED
from authgate.records import n, number, s, string
from authgate.single_use.authentication import Authentication
from authgate.stores.faults import condition_failed
from authgate.stores.polls import PolledStore

# CIBA 11's answer to each outcome of a poll that gets no tokens (authgate.polling).
_REFUSALS: dict[str, type[PollRefused]] = {"redeemed": RequestUnknown, "expired": RequestExpired,
                                           "denied": RequestDenied, "slow_down": PolledTooFast}


class BackchannelRequestStore(PolledStore):
    """CodesTable's `ciba#` items: a client's backchannel requests, from pending to redeemed."""

    table_setting = "codes"
    name = "backchannel_requests"

    def create(self, *, client_id: str, tenant_id: str, user_id: str, username: str, scope: str,
               binding_message: str, lifetime: int, interval: int, resource: str = "",
               authorization_details: str | None = None) -> tuple[str, BackchannelRequest]:
        """Store a new pending request; its auth_req_id in plain text (the only time it exists) and the record.
        `authorization_details`: the checked details' canonical JSON (RFC 9396 2). The approval link is
        `add_link`'s."""
        auth_req_id = secrets.token_urlsafe(32)
        now = clock.seconds()
        record = BackchannelRequest(
            key=key_of(auth_req_id), client_id=client_id, tenant_id=tenant_id, user_id=user_id, username=username,
            scope=scope, binding_message=binding_message, state=PENDING, issued_at=now, expires_at=now + lifetime,
            interval=interval, next_poll_at=now, resource=resource, grant_id=str(uuid.uuid4()),
            authorization_details=authorization_details)
        # 256 random bits never collide in practice; the condition makes sure of it.
        self.upsert(to_item(record), "create", condition="attribute_not_exists(code_hash)")
        return auth_req_id, record

    def add_link(self, request: BackchannelRequest) -> str:
        """A single-use approval link's secret for `request` (stored hashed, living as long as the request)."""
        link = secrets.token_urlsafe(32)
        self.upsert({"code_hash": s(link_key_of(link)), "request_key": s(request.key), "state": s(PENDING),
                     "expires_at": n(request.expires_at)}, "add_link", condition="attribute_not_exists(code_hash)")
        return link

    def by_link(self, link: str) -> BackchannelRequest:
        """The pending request an unused, unexpired link opens (two GetItems); LinkInvalid otherwise."""
        now = clock.seconds()
        item = self.find({"code_hash": s(link_key_of(link[:100]))}, "link")
        if item is None or string(item, "state") != PENDING or number(item, "expires_at") <= now:
            raise LinkInvalid()
        found = self.find({"code_hash": item["request_key"]}, "by_link")
        request = from_item(found) if found else None
        if request is None or request.state != PENDING or request.expires_at <= now or not request.user_id:
            raise LinkInvalid()
        return request

    def use_link(self, link: str) -> None:
        """Spend the link: one conditional write, so of two submissions one decides; LinkInvalid for the other."""
        if self._update_key(link_key_of(link[:100]), "use_link", "SET #state = :used",
                            "#state = :pending AND expires_at > :now",
                            {":used": s(REDEEMED), ":pending": s(PENDING), ":now": n(clock.seconds())}) is not None:
            raise LinkInvalid()

    def poll(self, auth_req_id: str, client_id: str) -> BackchannelRequest:
        """The approved request, claimed for redemption; else raise why not (CIBA 11; approvals.errors). The poll is
        stores.polls' one conditional write; another client's request reads as unknown, as does a redeemed one."""
        now = clock.seconds()
        key = key_of(auth_req_id)
        old = self.poll_once(key, "client_id = :client", {":client": s(client_id)}, now)
        if old is None:
            raise RequestPending()
        request = from_item(old) if old else None
        if request is None or request.client_id != client_id:
            raise RequestUnknown()
        outcome = self.refused(key, state=request.state, expires_at=request.expires_at, interval=request.interval,
                               now=now)
        if outcome != "approved":
            raise _REFUSALS[outcome]()
        # Approved: one conditional write redeems it, so of concurrent polls exactly one gets tokens.
        if self._update(auth_req_id, "redeem", "SET #state = :redeemed", "#state = :approved AND expires_at > :now",
                        {":redeemed": s(REDEEMED), ":approved": s(APPROVED), ":now": n(now)}) is not None:
            raise RequestUnknown()
        return request

    def decide(self, key: str, username: str, authentication: Authentication, *, approved: bool) -> bool:
        """Approve (with the user's sign-in at mfa) or deny a pending request of `authentication.user_id`;
        False when it was not pending, is another user's or has expired."""
        values: dict[str, Any] = {":pending": s(PENDING), ":user": s(authentication.user_id),
                                  ":now": n(clock.seconds()), ":decided": s(APPROVED if approved else DENIED),
                                  ":username": s(username)}
        update = "SET #state = :decided, username = :username"
        if approved:
            update += ", auth_time = :auth_time, acr = :acr, amr = :amr, generation = :generation"
            values.update({":auth_time": n(authentication.auth_time), ":acr": s(authentication.acr),
                           ":amr": {"L": [s(a) for a in authentication.amr]},
                           ":generation": n(authentication.generation)})
        return self._update_key(key, "decide", update,
                                "#state = :pending AND user_id = :user AND user_id <> :empty AND expires_at > :now",
                                {**values, ":empty": s("")}) is None

    def _update(self, auth_req_id: str, operation: str, update: str, condition: str,
                values: dict[str, Any]) -> dict[str, Any] | None:
        return self._update_key(key_of(auth_req_id), operation, update, condition, values)

    def _update_key(self, key: str, operation: str, update: str, condition: str,
                    values: dict[str, Any]) -> dict[str, Any] | None:
        """One conditional UpdateItem: None when it held, else the item as it was ({} when there was none)."""
        from botocore.exceptions import ClientError

        names = {name: name[1:] for name in ("#state", "#interval") if name in update or name in condition}
        try:
            with self.faults(operation):
                self.db.update_item(TableName=self.table, Key={"code_hash": s(key)}, UpdateExpression=update,
                                    ConditionExpression=f"attribute_exists(code_hash) AND {condition}",
                                    ExpressionAttributeValues=values,
                                    **({"ExpressionAttributeNames": names} if names else {}),
                                    ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old: dict[str, Any] = exc.response.get("Item") or {}
            return old
        return None


