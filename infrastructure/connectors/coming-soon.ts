import type { ConnectorDescription } from '../../domain/ports/connector-description';

/**
 * Catalog entries of partners announced but not integrated yet (`available: false`): shown so merchants see
 * what is coming; no account can be created for them. When a partner ships its adapter, its configured
 * Describe answer replaces the entry here (same slug).
 */
const EMPTY_SCHEMA = { type: 'object', properties: {}, required: [] } as const;

function soon(slug: string, name: string, kind: 'acquirer' | 'antifraud', capabilities: string[]): ConnectorDescription {
  return { slug, name, kind, capabilities, credentialSchema: EMPTY_SCHEMA, configSchema: EMPTY_SCHEMA, available: false };
}

export const COMING_SOON_CONNECTORS: readonly ConnectorDescription[] = [
  soon('cielo', 'Cielo', 'acquirer', ['card', 'debit_card', 'pix', 'zero_auth', 'refund', 'partial_capture', 'three_ds']),
  soon('rede', 'Rede', 'acquirer', ['card', 'debit_card', 'zero_auth', 'refund', 'partial_capture', 'three_ds']),
  soon('stone', 'Stone', 'acquirer', ['card', 'debit_card', 'pix', 'refund', 'partial_capture', 'split']),
  soon('getnet', 'Getnet', 'acquirer', ['card', 'debit_card', 'pix', 'boleto', 'refund', 'partial_capture']),
  soon('pagarme', 'Pagar.me', 'acquirer', ['card', 'pix', 'boleto', 'split', 'refund', 'partial_capture']),
  soon('clearsale', 'ClearSale', 'antifraud', ['antifraud', 'card']),
  soon('konduto', 'Konduto', 'antifraud', ['antifraud', 'card']),
];
