"""Builds the OpenAPI document the jwks function serves (authgate/openapi/openapi.json) from template.yaml."""
