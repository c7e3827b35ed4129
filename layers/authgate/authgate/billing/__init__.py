"""What the charges API keeps: a charge, the invoice it may pay, the idempotency record of a keyed POST, and their rules, apart from storage."""
