// The person's part of a code flow, over plain HTTP against `authgate serve`: the authorization endpoint's
// page, then its form posted back with its hidden fields, the binding cookie (a cookie jar of one), alice's
// password and "approve". Returns the page's HTML and the Location of the 303 to the client. Shared by the
// Node flows (fapi2_flow.mjs, rar_flow.mjs).
export async function signIn(authorizeUrl, authorizationEndpoint) {
  const page = await fetch(authorizeUrl, { redirect: "manual", headers: { accept: "text/html" } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page ${page.status}: ${html.slice(0, 300)}`);
  const cookie = (page.headers.get("set-cookie") || "").split(";")[0];
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    form.set(name, value.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#x27;", "'")
      .replaceAll("&lt;", "<").replaceAll("&gt;", ">"));
  }
  form.set("username", "alice"); form.set("password", "alice-password"); form.set("decision", "approve");
  const submitted = await fetch(authorizationEndpoint, { method: "POST", redirect: "manual", body: form,
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie } });
  const location = submitted.headers.get("location");
  if (submitted.status !== 303 || !location) throw new Error(`sign-in answered ${submitted.status}`);
  return { html, location };
}
