import { Migration } from '@mikro-orm/migrations';
import { isSealedText, sealText } from '../../crypto/sealed-text';
import { webhookTokenContext } from '../connector-account.repository';
import { sealingCipher } from './sealing-cipher';

const NAME = 'Migration20261128000200SealConnectorWebhookTokens';

/**
 * Connector accounts' inbound-notice tokens were stored in clear (issue 22, item 3: nothing secret is stored
 * unsealed); each is sealed as the repository now writes it. Deleted accounts' tokens too.
 */
export class Migration20261128000200SealConnectorWebhookTokens extends Migration {
  override async up(): Promise<void> {
    const rows = (await this.execute(`select id, webhook_token from connector_accounts where webhook_token not like 'sealed:%'`)) as Array<{ id: string; webhook_token: string }>;
    if (rows.length === 0) return;
    const cipher = sealingCipher(NAME);
    for (const row of rows) {
      if (isSealedText(row.webhook_token)) continue;
      await this.execute(`update connector_accounts set webhook_token = ? where id = ?`, [sealText(cipher, row.webhook_token, webhookTokenContext(row.id)), row.id]);
    }
  }
}
