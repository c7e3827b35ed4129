"""Approval by the payer (OpenID Connect CIBA Core 1.0, poll mode): a client's backchannel request and its outcome."""
