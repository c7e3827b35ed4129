"""API Gateway REST (payload v1) events <-> requests and responses, routing, correlation headers."""
