"""What an operator changes in the stack's configuration: one implementation for the admin CLI and the console.

Each module is one noun (resources, signing keys): what it accepts, checked with one clear reason per refusal
(`input.InvalidInput`, the sentence both callers show), and the operations on the stack, which return what they did.
"""
