/**
 * What a connector adapter says about itself (its Describe answer). The catalog, credential validation and
 * capability filters are built from it, so adding a partner needs no core change.
 */
export type ConnectorKind = 'acquirer' | 'antifraud';

/** A JSON Schema object (`type: object`, `properties`, `required`); secret fields carry `"x-secret": true`. */
export interface ConnectorJsonSchema {
  readonly type?: 'object';
  readonly properties?: Record<string, Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly [keyword: string]: unknown;
}

export interface ConnectorDescription {
  readonly slug: string;
  readonly name: string;
  readonly kind: ConnectorKind;
  readonly capabilities: readonly string[];
  readonly credentialSchema: ConnectorJsonSchema;
  readonly configSchema: ConnectorJsonSchema;
  /** false: listed as coming soon; no account can be created for it. */
  readonly available: boolean;
}

/** Credentials of one account, decrypted for one call: every credential field by name, and the config. */
export interface ConnectorCredentials {
  readonly values: Readonly<Record<string, string>>;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface VerifyCredentialsInput {
  readonly credentials: ConnectorCredentials;
}

/** Bad credentials are an answer, never an error: valid, invalid (partner refused) or unreachable. */
export interface VerifyCredentialsOutput {
  readonly result: 'valid' | 'invalid' | 'unreachable';
  readonly message: string;
}
