"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02): a client_id that is an https URL.

`client_id_url` checks the URL (section 3), `addresses` decides which resolved addresses may be
fetched (8.6), `fetcher` fetches over a connection pinned to a checked address, `document`
validates what came back (4, 4.1), `freshness` bounds the cache lifetime (5.2), and
`resolver` ties them to ClientsTable (the cache), the per-host rate limit and tenant policy.
"""
