"""Rate limiting on DynamoDB and the IETF RateLimit header fields."""
