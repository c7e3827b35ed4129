"""What an operator does to a tenant's identity providers: one implementation, for `authgate idps` and the console.

values: what each field may be; saml_metadata: a SAML IdP's metadata, fetched or given; actions: create, update,
delete and the record as shown. A refusal is operators.input.InvalidInput (the command's exit status 2, the
console's 400 page) or actions.Refused (it clashes with what the stack holds: exit status 1), with one message.
"""
