import { expect } from 'chai';
import { authenticator } from 'otplib';
import type { ManualClock } from '../../../infrastructure/clock/system-clock';
import type { ApiClient } from '../../support/api-client';

/** Computes a TOTP code the way an authenticator app does, at the service's (manual) time. */
export function totp(secret: string, at: Date): string {
  authenticator.options = { epoch: at.getTime() };
  try {
    return authenticator.generate(secret);
  } finally {
    authenticator.resetOptions();
  }
}

let counter = 0;
/** Valid CNPJs (check digits computed) so every company registers with its own document. */
export function cnpj(seed: number): string {
  const base = String(10_000_000 + seed).padStart(8, '0') + '0001';
  const digit = (digits: string, weights: number[]) => {
    const sum = digits.split('').reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  const d1 = digit(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = digit(base + d1, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${base}${d1}${d2}`;
}

export function registration(overrides: { email?: string; document?: string; password?: string } = {}) {
  counter += 1;
  return {
    name: 'Ana Souza',
    email: overrides.email ?? `owner${counter}-${Date.now()}@example.com`,
    password: overrides.password ?? 'correct horse battery staple',
    phone: '+5511999990000',
    acceptedTerms: true,
    authorizedRepresentative: true,
    company: {
      document: overrides.document ?? cnpj(counter * 7919 + (Date.now() % 100000)),
      legalName: 'ACME Pagamentos LTDA',
      name: 'ACME',
      activity: 'Retail',
      website: 'https://acme.example.com',
      address: { postalCode: '01310-100', line1: 'Avenida Paulista', streetNumber: '1000', neighborhood: 'Bela Vista', city: 'Sao Paulo', state: 'SP' },
    },
  };
}

export interface Enrolled {
  readonly email: string;
  readonly password: string;
  readonly secret: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly recoveryCodes: string[];
}

/** Register, enroll an authenticator and confirm a code: the full path to a first session. */
export async function registerAndEnroll(api: ApiClient, clock: ManualClock, overrides: { email?: string; document?: string } = {}): Promise<Enrolled> {
  const input = registration(overrides);
  const registered = await api.post('/v1/auth/register', input);
  expect(registered.status, registered.text).to.equal(201);
  const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: registered.body.challengeToken });
  expect(setup.status, setup.text).to.equal(201);
  const verified = await api.post('/v1/auth/mfa/verify', { challengeToken: registered.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
  expect(verified.status, verified.text).to.equal(201);
  clock.advance(30_000);
  return {
    email: input.email,
    password: input.password,
    secret: setup.body.manualKey,
    organizationId: registered.body.organization.id,
    userId: registered.body.user.id,
    accessToken: verified.body.accessToken,
    refreshToken: verified.body.refreshToken,
    recoveryCodes: verified.body.recoveryCodes,
  };
}

/** Login and TOTP; advances the clock one step so the next code is fresh. */
export async function signIn(api: ApiClient, clock: ManualClock, user: { email: string; password: string; secret: string }) {
  const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
  expect(login.status, login.text).to.equal(201);
  const verified = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
  expect(verified.status, verified.text).to.equal(201);
  clock.advance(30_000);
  return verified.body as { accessToken: string; refreshToken: string };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
