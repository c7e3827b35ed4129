"""Local stand-ins for AWS: the template reader, moto made atomic, the API Gateway emulator."""
