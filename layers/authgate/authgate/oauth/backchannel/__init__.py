"""Approval by the payer: POST /oauth/backchannel (OpenID Connect CIBA Core 1.0 7, poll mode) and its user lookup."""
