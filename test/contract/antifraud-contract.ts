import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import type { AntifraudGateway, AntifraudRecommendation } from '../../domain/ports/antifraud-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import { ConnectorFailure } from '../../domain/shared/connector-failure';

chai.use(chaiAsPromised);

/** The contract every antifraud adapter must pass, run through the core's AntifraudGateway. */
export interface AntifraudContractFixture {
  readonly gateway: AntifraudGateway;
  readonly credentials: ConnectorCredentials;
  readonly invalidCredentials: ConnectorCredentials;
  readonly unreachableCredentials: ConnectorCredentials;
  /** A card token per verdict the provider can be made to give. */
  readonly tokens: Readonly<Record<Exclude<AntifraudRecommendation, 'error'>, string>>;
  teardown(): Promise<void>;
}

export function runAntifraudContract(adapterName: string, setup: () => Promise<AntifraudContractFixture>): void {
  describe(`AntifraudConnector contract: ${adapterName}`, () => {
    let f: AntifraudContractFixture;

    before(async () => {
      f = await setup();
    });

    after(async () => {
      await f?.teardown();
    });

    const analyze = (token: string, idempotencyKey = `att_${randomUUID()}`, credentials = f.credentials) =>
      f.gateway.analyze({
        credentials,
        idempotencyKey,
        paymentId: `pay_${randomUUID()}`,
        amount: 5000,
        currency: 'BRL',
        methodType: 'card',
        source: { type: 'card', token },
        customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725' },
        items: [{ name: 'Book', quantity: 1, amount: 5000 }],
      });

    describe('Describe', () => {
      it('describes an available antifraud provider with a secret-marked credential schema', async () => {
        const description = await f.gateway.describe();
        expect(description.kind).to.equal('antifraud');
        expect(description.available).to.equal(true);
        const secret = Object.values(description.credentialSchema.properties ?? {}).some((p) => p['x-secret'] === true);
        expect(secret).to.equal(true);
      });
    });

    describe('VerifyCredentials', () => {
      it('answers valid, invalid and unreachable as data', async () => {
        expect((await f.gateway.verifyCredentials({ credentials: f.credentials })).result).to.equal('valid');
        expect((await f.gateway.verifyCredentials({ credentials: f.invalidCredentials })).result).to.equal('invalid');
        expect((await f.gateway.verifyCredentials({ credentials: f.unreachableCredentials })).result).to.equal('unreachable');
      });
    });

    describe('Analyze', () => {
      for (const recommendation of ['approve', 'review', 'decline'] as const) {
        it(`recommends ${recommendation} with a 0-100 score and a provider status`, async () => {
          const result = await analyze(f.tokens[recommendation]);
          expect(result.recommendation).to.equal(recommendation);
          if (result.score !== null) expect(result.score).to.be.within(0, 100);
          expect(result.providerStatus).to.be.a('string').and.not.empty;
          expect(result.triggeredRules).to.be.an('array');
        });
      }

      it('returns the first analysis for a repeated idempotency key', async () => {
        const idempotencyKey = `att_${randomUUID()}`;
        const first = await analyze(f.tokens.review, idempotencyKey);
        expect(await analyze(f.tokens.review, idempotencyKey)).to.deep.equal(first);
      });

      it('fails technically (not a verdict) when the provider cannot be reached', async () => {
        const error = await analyze(f.tokens.approve, undefined, f.unreachableCredentials).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(ConnectorFailure);
        expect(error).to.include({ kind: 'technical' });
      });
    });
  });
}
