// The passkey pages' one script (authgate.http.pages.script): WebAuthn Level 3 5.1.3 create() and 5.1.4 get().
// The page holds the options (JSON from py_webauthn) in a data block and a form with a hidden `credential`
// field; on submit, this asks the browser for the credential, puts its JSON (base64url binary fields, as
// py_webauthn parses it) in that field and submits the form. No network call of its own.
// The page that brings an identity provider's answer back to the flow's page (authgate.interaction.upstream_pages)
// holds a form `continue-form`, submitted here at once: its button does the same where scripts do not run.
"use strict";
(function () {
  const onward = document.getElementById("continue-form");
  if (onward) onward.submit();
})();
(function () {
  const form = document.getElementById("passkey-form");
  const data = document.getElementById("passkey-options");
  const status = document.getElementById("passkey-status");
  if (!form || !data) return;
  const bytes = (text) => {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(b64 + "===".slice((b64.length + 3) % 4)), (c) => c.charCodeAt(0));
  };
  const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const ids = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));
  form.addEventListener("submit", async (event) => {
    if (form.elements.credential.value) return;
    event.preventDefault();
    const options = JSON.parse(data.textContent);
    options.challenge = bytes(options.challenge);
    try {
      let credential;
      if (form.dataset.ceremony === "create") {
        options.user.id = bytes(options.user.id);
        options.excludeCredentials = ids(options.excludeCredentials);
        const made = await navigator.credentials.create({ publicKey: options });
        credential = {
          id: made.id, rawId: text(made.rawId), type: made.type,
          response: {
            clientDataJSON: text(made.response.clientDataJSON),
            attestationObject: text(made.response.attestationObject),
            transports: made.response.getTransports ? made.response.getTransports() : [],
          },
          clientExtensionResults: made.getClientExtensionResults(),
          authenticatorAttachment: made.authenticatorAttachment,
        };
      } else {
        options.allowCredentials = ids(options.allowCredentials);
        const used = await navigator.credentials.get({ publicKey: options });
        credential = {
          id: used.id, rawId: text(used.rawId), type: used.type,
          response: {
            clientDataJSON: text(used.response.clientDataJSON),
            authenticatorData: text(used.response.authenticatorData),
            signature: text(used.response.signature),
            userHandle: used.response.userHandle ? text(used.response.userHandle) : null,
          },
          clientExtensionResults: used.getClientExtensionResults(),
          authenticatorAttachment: used.authenticatorAttachment,
        };
      }
      form.elements.credential.value = JSON.stringify(credential);
      form.submit();
    } catch (error) {
      status.textContent = "The passkey was not used (" + error.name + "). Try again, or go back.";
      status.hidden = false;
    }
  });
})();
