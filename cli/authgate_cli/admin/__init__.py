"""Admin commands (`authgate clients|users|keys|tenants ...`) and how they find the stack they act on.

Each group module exposes `register(subparsers)`; its commands call `target.add_arguments(parser)`
and, before touching AWS, `target.use(args)`. The default target is the running local stack
(`authgate serve`); `--stack-name NAME [--region R]` targets a deployed stage.
"""
