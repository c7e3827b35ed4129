"""Finding a client whatever its source, and the clients that register themselves."""
