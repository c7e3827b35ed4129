"""What a client may present only once: authorization codes, pushed request URIs, refresh tokens, JWT ids; the records and what a second use raises, apart from storage."""
