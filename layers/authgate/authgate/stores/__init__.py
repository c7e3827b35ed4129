"""DynamoDB stores: reads, writes and conditional writes, a store per kind of item (docs/architecture.md, "Stores").

Each takes its client; ClientError codes become domain errors at the edge."""
