"""The people who run the stack (docs/console.md): operators, their roles, and what each role may do.

An operator is a user of the operators tenant (settings.operators_tenant) who holds roles (model); what a role may
do is the one table of `roles`, asked through `roles.may` by every page of the console; the console's session of an
operator is `console_session`.
"""
