"""Rich Authorization Requests (RFC 9396): authorization_details, their types and what each allows."""
