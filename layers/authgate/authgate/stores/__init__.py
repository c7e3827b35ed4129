"""DynamoDB stores, one per table. Each takes its client; ClientError codes become domain errors at the edge."""
