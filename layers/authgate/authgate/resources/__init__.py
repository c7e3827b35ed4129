"""Protected resources tokens are issued for (RFC 8707 2, RFC 9728 2): the model and its rules, apart from storage."""
