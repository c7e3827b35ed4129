"""The device authorization grant (RFC 8628): the device authorization endpoint and the verification page."""
