/**
 * What the merchant sends about a payment that every method keeps as sent, whatever starts it (a card charged at
 * once, a checkout, a bank charge): the same fields, absent ones as null, in one place.
 */
export interface MerchantFields {
  readonly description?: string;
  readonly externalId?: string;
  readonly metadata?: Record<string, string | number | boolean | null>;
  readonly clientIp?: string;
  readonly clientUserAgent?: string;
  readonly deviceId?: string;
}

export function merchantFieldsOf(command: MerchantFields) {
  return {
    description: command.description ?? null,
    externalId: command.externalId ?? null,
    metadata: command.metadata,
    clientIp: command.clientIp ?? null,
    clientUserAgent: command.clientUserAgent ?? null,
    deviceId: command.deviceId ?? null,
  };
}
