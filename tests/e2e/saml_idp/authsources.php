<?php
// The test IdP's people (exampleauth:UserPass): the users of tests/e2e/saml_idp/__init__.py's USERS.
$config = [
    'admin' => ['core:AdminPassword'],
    'people' => array_merge(['exampleauth:UserPass'], json_decode(file_get_contents(__DIR__ . '/users.json'), true)),
];
