/**
 * `npm run cli -- quickstart`: a sandbox organization, a sandbox API key and a sandbox connector account in one
 * command, then the two lines to paste before README's Quickstart. The account is created through the running
 * service's API (with the new key), so its adapter validates it as for any merchant.
 */
import type { Core } from './core';

export interface QuickstartInput {
  readonly apiUrl: string;
  readonly name: string;
  readonly flags: Record<string, string>;
  /** Creates the owner user when --email is given (identity module). */
  readonly afterOrganizationCreated?: (core: Core, organizationId: string, flags: Record<string, string>) => Promise<unknown>;
}

/** Sandbox credentials: the sandbox acquirer checks their shape only. */
const SANDBOX_ACCOUNT = { connectorSlug: 'sandbox', name: 'Sandbox acquirer', credentials: { merchantId: 'quickstart', apiKey: 'sandbox' } };

export async function quickstart(core: Core, input: QuickstartInput): Promise<string> {
  const organization = await core.organizations.create.execute({ name: input.name });
  if (input.flags.email && input.afterOrganizationCreated) await input.afterOrganizationCreated(core, organization.id, input.flags);
  const { secret } = await core.apiKeys.create.execute({ organizationId: organization.id, environment: 'sandbox', name: 'quickstart sandbox key' });
  const response = await fetch(`${input.apiUrl}/v1/connector-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(SANDBOX_ACCOUNT),
  });
  const account = (await response.json()) as { id?: string; error?: { code: string; message: string } };
  if (response.status !== 201 || !account.id) {
    throw new Error(`the service at ${input.apiUrl} refused the sandbox connector account: ${account.error?.code ?? response.status} ${account.error?.message ?? ''}`.trim());
  }
  return [
    `Sandbox organization ${organization.id} ("${organization.name}") is ready, with a sandbox API key and the sandbox connector account ${account.id}.`,
    'The secret key is shown once. Paste these two lines into the terminal you will use (README, Quickstart):',
    '',
    `export SK=${secret}`,
    `export API=${input.apiUrl}`,
    '',
  ].join('\n');
}
