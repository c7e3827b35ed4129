// Evaluates AWS requests against IAM identity policies with @cloud-copilot/iam-simulate.
// stdin: a JSON array of {id, principal, accountId, action, resource, context, policies, resourcePolicy?};
// stdout: a JSON array of {id, result, errors?} where result is "Allowed", "ImplicitlyDenied",
// "ExplicitlyDenied" or "Error". Used by tests/deploy/iam (the least-privilege check).
import { runSimulation } from '@cloud-copilot/iam-simulate'

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const requests = JSON.parse(Buffer.concat(chunks).toString('utf8'))
const out = []
for (const r of requests) {
  const simulation = {
    request: {
      principal: r.principal,
      action: r.action,
      resource: { resource: r.resource, accountId: r.accountId },
      contextVariables: r.context || {}
    },
    identityPolicies: r.policies.map((policy, i) => ({ name: `policy${i}`, policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: r.resourcePolicy
  }
  const result = await runSimulation(simulation, {})
  if (result.resultType === 'error') {
    out.push({ id: r.id, result: 'Error', errors: result.errors })
  } else {
    out.push({ id: r.id, result: result.overallResult })
  }
}
process.stdout.write(JSON.stringify(out))
