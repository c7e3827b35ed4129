"""Names vulture cannot see used (`make deadcode`): called through a string, an interface or a framework."""

# ruff: noqa
from authgate import aws, settings
from authgate.oauth.authorization import par
from authgate.oauth.clients.registration import endpoint as registration, management
from authgate.oauth.token import introspection, revocation
from authgate.oauth.token.grants import (authorization_code, ciba, client_credentials, jwt_bearer, password,
                                        refresh_token, token_exchange)
from authgate.approvals import backchannel_request
from authgate.oauth.backchannel import approval_page, endpoint as backchannel
from authgate.oauth.discovery import saml_service_provider
from authgate.single_use import codes, refresh_tokens
from authgate.ssf import configuration as ssf_configuration, poll as ssf_poll, signals as ssf_signals, \
    status as ssf_status, streams as ssf_streams, subjects as ssf_subjects, verification as ssf_verification
from authgate_cli.local import context, listeners
from authgate.console import (
    act, client_act, client_forms, clients, home, people, person, registration, sign_out, token_request)
from authgate.console import act, home, people, person, sign_out, token_request
from authgate.console import tenant, tenant_create, tenant_update, tenants
from authgate.console import act, home, keys, people, person, resource_forms, resources, sign_out, token_request
from authgate.console import events as console_events, operators as console_operators
from authgate.console import person_form
from authgate.console import verification
from authgate.console import idp, idp_actions, idp_form, idps

# botocore calls the loader's method (authgate.aws).
aws._session.list_available_services
type_name
# Loaded by name: grants from GRANTS (oauth.token.grants), lazy routes as Route("module:function").
authorization_code.AuthorizationCodeGrant
client_credentials.ClientCredentialsGrant
password.PasswordGrant
refresh_token.RefreshTokenGrant
token_exchange.TokenExchangeGrant
jwt_bearer.JwtBearerGrant
device_code.DeviceCodeGrant
ciba.CibaGrant
backchannel.post_backchannel
approval_page.get_approve
approval_page.post_approve
saml_service_provider.get_sp_metadata
introspection.post_introspect
par.post_par
revocation.post_revoke
registration.post_register
management.get_registration
management.put_registration
management.delete_registration
userinfo.get_userinfo
endpoint.logout
returns.get_logged_out
returns.get_slo
upstream_backchannel.post_backchannel_logout
forgotten_password.get_forgot
forgotten_password.post_forgot
forgotten_password.get_reset
forgotten_password.post_reset
page.get_account
page.post_account
authorization.post_device_authorization
verification.get_device
verification.post_device
callback.get_callback
callback.post_callback
callback.post_acs
ssf_configuration.get_ssf_configuration
ssf_streams.create_stream
ssf_streams.get_streams
ssf_streams.update_stream
ssf_streams.replace_stream
ssf_streams.delete_stream
ssf_status.get_status
ssf_status.post_status
ssf_subjects.add_subject
ssf_subjects.remove_subject
ssf_verification.post_verify
ssf_poll.post_poll
# Called by the audit pipeline's consumer (the audit function, the local stack's in-process consumer).
ssf_signals.on_events
# The console's pages, loaded by name from authgate.console.routes.PAGES.
home.get_home
people.get_people
person.get_person
act.get_act
act.post_act
person_form.get_new
person_form.post_new
person_form.get_edit
person_form.post_edit
sign_out.post_sign_out
sign_out.get_signed_out
clients.get_clients
registration.get_client
client_forms.get_new
client_forms.post_new
client_forms.get_edit
client_forms.post_edit
client_act.get_act
client_act.post_act
tenants.get_tenants
tenant.get_tenant
tenant_create.get_tenant_create
tenant_create.post_tenant_create
tenant_update.get_tenant_update
tenant_update.post_tenant_update
resources.get_resources
resources.get_resource
resource_forms.get_new
resource_forms.post_new
resource_forms.get_edit
resource_forms.post_edit
resource_forms.get_delete
resource_forms.post_delete
keys.get_keys
keys.get_key
keys.get_rotate
keys.post_rotate
idps.get_idps
idp.get_idp
idp_form.get_create
idp_form.get_update
idp_actions.post_create
idp_actions.post_update
idp_actions.get_delete
idp_actions.post_delete
# urllib's redirect handler interface: the console's calls to its own stack follow no redirect.
token_request._NoRedirect.redirect_request
# Record fields read from DynamoDB and kept whole, though no code reads them back yet.
codes.code_hash
refresh_tokens.rotated_to
backchannel_request.next_poll_at  # read by the poll's condition expression
backchannel_request.authorization_details  # RFC 9396: carried once requests may name them
model.User.updated_at
# Table names read by field name (stores.base.TableStore.table_setting).
settings.Tables.revocations
settings.Tables.consents
settings.Tables.identity_providers
settings.Tables.linked_identities
# The Lambda context object's interface (local emulator, bench child).
context.LambdaContext.memory_limit_in_mb
context.LambdaContext.aws_request_id
context.LambdaContext.function_version
context.LambdaContext.log_stream_name
context.LambdaContext.invoked_function_arn
context.LambdaContext.get_remaining_time_in_millis
# Hypercorn's Config, set by attribute.
listeners.keep_alive_timeout
listeners.graceful_timeout
listeners.include_server_header
listeners.accesslog
listeners.errorlog
# Attributes set on other libraries' objects in the tests (moto, socketserver).
http_method
has_cfn_attr
get_cfn_attribute
moto_server_host
daemon_threads
key_rotation_status
object_lock_enabled
# Called by the libraries the tests drive (http.server, the MCP SDKs' token storage and tools).
protocol_version
close_connection
get_tokens
set_tokens
get_client_info
set_client_info
token_expiry_time
list_notes
add_note
# Fixtures requested for their effect only.
dcr
fresh_origins
roomy_limits
small_limits
roles
bob
# users.model.SecondFactors: read by the sign-in step and the account page that are wired next.
totp_pending
sessions_valid_after
# settings.Tables fields read by name (TableStore.table_setting = "passkeys").
passkeys
# signxml calls it on the test IdP's signer (tests/saml_support.py), which signs SHA-1 for the tests refusing it.
check_deprecated_methods
# The console's Events and Operators pages, loaded by name from authgate.console.routes.PAGES.
console_events.get_events
console_events.get_event
console_operators.get_operators
console_operators.get_role_change
console_operators.post_role_change
# The console's Verify (of the Events page), loaded by name from authgate.console.routes.PAGES.
verification.get_verify
