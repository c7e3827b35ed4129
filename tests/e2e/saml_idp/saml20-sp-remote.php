<?php
// authgate's service provider as the IdP's administrator registers it
// (docs/federation.md#what-the-idps-administrator-registers).
$metadata['{{sp_entity_id}}'] = [
    'AssertionConsumerService' => [
        ['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', 'Location' => '{{acs_url}}'],
    ],
    'SingleLogoutService' => [
        ['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'Location' => '{{slo_url}}'],
    ],
    'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    // Its LogoutResponses signed (HTTP-Redirect: SigAlg and Signature on the query), which authgate verifies.
    'sign.logout' => true,
    // authgate's requests: checked against its SAML signing certificate when the run registers one.
{{sp_signing}}
];
