"""Reference POST /charges (Idempotency-Key) and GET /charges/{id} on the usual stack; see __init__.py."""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any

import boto3
import jwt
from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import (
    BadRequestError,
    NotFoundError,
    UnauthorizedError,
)
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

CHARGES_TABLE = os.environ["AUTHGATE_CHARGES_TABLE"]
IDEMPOTENCY_TABLE = os.environ["AUTHGATE_IDEMPOTENCY_TABLE"]
ISSUER = os.environ["AUTHGATE_ISSUER"]
PUBLIC_KEY = os.environ["REFERENCE_PUBLIC_KEY"]

app = APIGatewayRestResolver()
logger = Logger(service="reference-charges")
dynamodb = boto3.client("dynamodb")
persistence = DynamoDBPersistenceLayer(table_name=IDEMPOTENCY_TABLE, boto3_client=dynamodb)
config = IdempotencyConfig(event_key_jmespath="key", payload_validation_jmespath="body",
                           expires_after_seconds=24 * 3600)


def clients() -> dict[str, Any]:
    """The AWS clients this function uses (the bench records and stubs them)."""
    return {"dynamodb": dynamodb}


class ChargeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    amount: int = Field(gt=0, le=99_999_999)
    currency: str = Field(pattern=r"^[a-z]{3}$")
    description: str | None = Field(default=None, max_length=500)
    invoice_id: str | None = None


def claims(scope: str) -> dict[str, Any]:
    auth = app.current_event.headers.get("Authorization") or app.current_event.headers.get("authorization") or ""
    if not auth.startswith("Bearer "):
        raise UnauthorizedError("Missing bearer token")
    try:
        decoded: dict[str, Any] = jwt.decode(auth[7:], PUBLIC_KEY, algorithms=["RS256"], audience=ISSUER + "/charges",
                                             issuer=ISSUER)
    except jwt.PyJWTError as exc:
        raise UnauthorizedError("Invalid token") from exc
    if scope not in decoded["scope"].split():
        raise UnauthorizedError("Insufficient scope")
    return decoded


@idempotent_function(data_keyword_argument="request", persistence_store=persistence, config=config)
def create(request: dict[str, Any]) -> dict[str, Any]:
    charge = {"id": "ch_" + uuid.uuid4().hex, "object": "charge", **request["body"], "status": "succeeded",
              "created": int(time.time())}
    item = {"tenant_id": {"S": request["tenant"]}, "charge_id": {"S": charge["id"]},
            "amount": {"N": str(charge["amount"])}, "currency": {"S": charge["currency"]},
            "status": {"S": "succeeded"}, "created": {"N": str(charge["created"])},
            "client_id": {"S": request["client_id"]}}
    dynamodb.put_item(TableName=CHARGES_TABLE, Item=item, ConditionExpression="attribute_not_exists(charge_id)")
    return charge


@app.post("/charges")
def post_charge() -> Response[Any]:
    token = claims("charges:write")
    key = app.current_event.headers.get("Idempotency-Key")
    if not key:
        raise BadRequestError("Idempotency-Key is required")
    try:
        body = ChargeIn.model_validate_json(app.current_event.body or "").model_dump(exclude_none=True)
    except ValidationError as exc:
        return Response(status_code=422, content_type="application/json",
                        body={"errors": exc.errors(include_url=False, include_input=False)})
    charge = create(request={"key": f"{token['client_id']}#{key}", "body": body, "tenant": token["tenant"],
                             "client_id": token["client_id"]})
    logger.info("charge created", extra={"charge_id": charge["id"]})
    return Response(status_code=201, content_type="application/json", body=json.dumps(charge),
                    headers={"Location": f"{ISSUER}/charges/{charge['id']}", "Cache-Control": "no-store"})


@app.get("/charges/<charge_id>")
def get_charge(charge_id: str) -> Response[Any]:
    token = claims("charges:read")
    item = dynamodb.get_item(TableName=CHARGES_TABLE, ConsistentRead=True,
                             Key={"tenant_id": {"S": token["tenant"]}, "charge_id": {"S": charge_id}}).get("Item")
    if not item:
        raise NotFoundError("No such charge")
    charge = {"id": charge_id, "object": "charge", "amount": int(item["amount"]["N"]),
              "currency": item["currency"]["S"], "status": item["status"]["S"], "created": int(item["created"]["N"])}
    logger.info("charge read", extra={"charge_id": charge_id})
    return Response(status_code=200, content_type="application/json", body=json.dumps(charge),
                    headers={"Cache-Control": "no-store"})


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    config.register_lambda_context(context)
    return app.resolve(event, context)
