"""Outbound mail: Amazon SES (sesv2 SendEmail) where the stage names an identity, the local outbox on `authgate serve`."""
