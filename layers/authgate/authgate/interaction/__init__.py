"""The interaction: the one place a person proves who they are, for every flow that needs a person."""
