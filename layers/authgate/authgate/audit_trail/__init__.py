"""The audit trail's keeping side: recorded events (authgate.audit) chained into objects nobody can
quietly change, published on the stage's event bus, and handed to the Shared Signals hook.

- chain: an object's format (a sealed header line, then one event per line), its name, and the
  verification that finds a missing, edited or rewritten object;
- mac: the seal's HMAC (a KMS HMAC key on a stage, a key file locally);
- bucket, directory: where objects are kept (the Object Lock bucket; the local stack's directory);
- trail: appending a batch as the next object of the chain;
- kinesis: the stream's records (CloudWatch Logs subscription batches, an admin command's line);
- bus: EventBridge publication, with retries and a queue for what the bus refused;
- consumer: one batch end to end (the audit function's, and the local stack's);
- reader: the events of a period and the verification of its objects (`authgate events`).
"""
