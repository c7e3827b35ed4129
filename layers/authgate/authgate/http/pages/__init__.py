"""The HTML pages a person sees (login and consent, authorization errors, problem-type pages).

They share one stylesheet and one icon, each served from a route of its own (`GET /assets/authgate.css`,
`GET /assets/icon.svg`, declared in template.yaml; http.pages.assets), so no page needs an inline style
and no browser asks for /favicon.ico, and one strict set of response headers.
"""
