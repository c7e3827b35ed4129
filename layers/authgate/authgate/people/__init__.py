"""What an operator does to a person's account, one implementation for `authgate users` and the console (actions)."""
