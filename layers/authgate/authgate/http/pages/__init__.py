"""The HTML pages a person sees (login and consent, authorization errors, problem-type pages).

They share one stylesheet, served from a route of its own (`GET /assets/authgate.css`, declared
in template.yaml), so no page needs an inline style, and one strict set of response headers.
"""
