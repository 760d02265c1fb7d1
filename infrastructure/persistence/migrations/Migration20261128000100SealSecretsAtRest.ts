import { Migration } from '@mikro-orm/migrations';
import type { TenantScope } from '../../../domain/shared/environment';
import { isSealedText, sealText } from '../../crypto/sealed-text';
import { installationSecretContext } from '../identity-secrets';
import { headerContext, secretContext } from '../webhook-endpoint.repository';
import { sealAnswer } from '../sql-idempotency-store';
import { sealingCipher } from './sealing-cipher';

const NAME = 'Migration20261128000100SealSecretsAtRest';

interface EndpointSecrets {
  id: string;
  secret: string;
  previous_secret: string | null;
  custom_headers: Record<string, string>;
}

interface StoredAnswer {
  organization_id: string;
  environment: TenantScope['environment'];
  route: string;
  key: string;
  response_body: unknown;
  response_headers: Record<string, string> | null;
}

/**
 * Secrets stored in clear before they were sealed (issue 22, item 3): webhook endpoints' extra header values (and any
 * signing secret written before secrets were sealed), and the Idempotency-Key answers kept for replay, which carry
 * a `whsec_` secret for webhook create and rotate-secret, and the installation secrets (the dashboard token-signing
 * secret when SESSION_SECRET is unset). Each is sealed as the repositories now write it. Every header value is sealed
 * (none was before), even one that happens to start with `sealed:`.
 */
export class Migration20261128000100SealSecretsAtRest extends Migration {
  override async up(): Promise<void> {
    const endpoints = (await this.execute(
      `select id, secret, previous_secret, custom_headers from webhook_endpoints
        where custom_headers <> '{}'::jsonb or secret not like 'sealed:%' or previous_secret not like 'sealed:%'`,
    )) as EndpointSecrets[];
    const answers = (await this.execute(
      `select organization_id, environment, route, key, response_body, response_headers from idempotency_keys
        where state = 'completed' and jsonb_typeof(response_body) is distinct from 'string'`,
    )) as StoredAnswer[];
    const installation = (await this.execute(`select name, value from identity_secrets where value not like 'sealed:%'`)) as Array<{ name: string; value: string }>;
    if (endpoints.length === 0 && answers.length === 0 && installation.length === 0) return;
    const cipher = sealingCipher(NAME);

    for (const row of endpoints) {
      const seal = (value: string | null) => (value === null || isSealedText(value) ? value : sealText(cipher, value, secretContext(row.id)));
      const headers = Object.fromEntries(
        Object.entries(row.custom_headers).map(([name, value]) => [name, sealText(cipher, value, headerContext(row.id, name))]),
      );
      await this.execute(`update webhook_endpoints set secret = ?, previous_secret = ?, custom_headers = ?::jsonb where id = ?`, [
        seal(row.secret), seal(row.previous_secret), JSON.stringify(headers), row.id,
      ]);
    }

    for (const row of answers) {
      const scope = { organizationId: row.organization_id, environment: row.environment };
      const sealed = sealAnswer(cipher, scope, row.route, row.key, { body: row.response_body, headers: row.response_headers ?? {} });
      await this.execute(
        `update idempotency_keys set response_body = ?::jsonb, response_headers = null
          where organization_id = ? and environment = ? and route = ? and key = ?`,
        [JSON.stringify(sealed), row.organization_id, row.environment, row.route, row.key],
      );
    }

    for (const row of installation) {
      await this.execute(`update identity_secrets set value = ? where name = ?`, [sealText(cipher, row.value, installationSecretContext(row.name)), row.name]);
    }
  }
}
