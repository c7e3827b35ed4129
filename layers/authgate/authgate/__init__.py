"""authgate: OAuth 2.0 authorization server and bearer-protected API with a documented error contract."""
