<?php
// The test IdP: signs its Responses and their assertions (RSA-SHA256), releases a persistent NameID
// (saml:PersistentNameID: a salted hash of the uid, stable per SP) and its users' attributes.
$metadata['__DYNAMIC:1__'] = [
    'host' => '__DEFAULT__',
    'privatekey' => 'idp.key',
    'certificate' => 'idp.crt',
    'auth' => 'people',
    'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    'saml20.sign.assertion' => true,
    'saml20.sign.response' => {{sign_response}},
    // Whether every SP's AuthnRequests must be signed (its metadata then says WantAuthnRequestsSigned="true").
    'validate.authnrequest' => {{require_signed_requests}},
    'authproc' => [
        10 => ['class' => 'saml:PersistentNameID', 'attribute' => 'uid', 'nameId' => true],
    ],
];
