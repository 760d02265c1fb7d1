import { createHash } from 'node:crypto';
import { normalizeDocument, normalizeEmail, type RegisterCompany } from './register-rules';

/** Registration data of a company (the root organization). Brands have none: they belong to their company. */
export interface CompanyProfile extends RegisterCompany {
  readonly organizationId: string;
  readonly trialEligible: boolean;
  readonly createdAt: Date;
}

/**
 * Keys that identify who already had a free trial: the tax id and the owner's e-mail, normalized and hashed.
 * A new company reusing either is created without a trial (spec, Free trial); brands never get one.
 */
export function trialClaims(document: string, email: string): string[] {
  const hash = (value: string) => createHash('sha256').update(value).digest('hex');
  return [hash(`document:${normalizeDocument(document)}`), hash(`email:${normalizeEmail(email)}`)];
}
