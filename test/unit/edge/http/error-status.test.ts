import { expect } from 'chai';
import { ERROR_CODES } from '../../../../domain/shared/error-codes';
import { DomainError, InvalidStateError, NotFoundError } from '../../../../domain/shared/domain-error';
import { EDGE_ERROR_CODES, STATUS_OF, statusForCode, type ApiErrorCode } from '../../../../edge/http/error-status';
import { HttpError } from '../../../../edge/http/errors';

// Checked by `tsc`: the table names every code (a missing one fails the first line) and no other (the second).
const everyCodeHasAStatus: Record<ApiErrorCode, number> = STATUS_OF;
const noStrayCode: [Exclude<keyof typeof STATUS_OF, ApiErrorCode>] extends [never] ? true : never = true;

/** Never called: `tsc` fails if a code outside the lists becomes acceptable again (the directives go unused). */
function unlistedCodesDoNotCompile(): void {
  // @ts-expect-error a domain error takes only a code of ERROR_CODES
  new DomainError('no_such_code', 'refused');
  // @ts-expect-error an edge error takes only a code the table maps
  new HttpError('no_such_code', 'refused');
}

/** What clients rely on, written out again so that a status changed by mistake in the table fails here. */
const EXPECTED_STATUS: Record<number, readonly ApiErrorCode[]> = {
  400: ['invalid_json', 'bad_request'],
  401: ['unauthorized', 'invalid_client_secret', 'invalid_credentials', 'invalid_challenge', 'invalid_mfa_code', 'invalid_recovery_code'],
  403: ['forbidden', 'blocked_by_security_policy'],
  404: ['not_found'],
  402: ['production_access_required'],
  405: ['method_not_allowed'],
  409: [
    'idempotency_conflict', 'invalid_state', 'conflict', 'payment_not_capturable', 'boleto_refund_not_supported',
    'connector_account_in_use', 'endpoint_disabled', 'webhook_url_taken', 'webhook_endpoint_limit_reached',
    'email_already_registered', 'mfa_setup_required', 'email_disabled', 'catalog_version_mismatch', 'already_subscribed',
  ],
  410: ['payment_expired'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: [
    'validation_failed', 'resource_missing', 'sensitive_card_data', 'unsupported_payment_method', 'payment_method_invalid',
    'customer_incomplete', 'invalid_decline', 'amount_exceeds_available', 'operation_declined', 'checkout_not_available',
    'checkout_not_configured', 'connector_not_allowed_in_environment', 'connector_not_available',
    'connector_verification_failed', 'invalid_webhook_url', 'internal_address_blocked', 'unknown_event_type',
    'event_type_not_subscribable', 'invalid_custom_header', 'reserved_custom_header', 'too_many_custom_headers',
    'invalid_current_password', 'invalid_reset_token', 'hosted_checkout_required',
  ],
  429: ['rate_limited'],
  499: ['client_closed_request'],
  500: ['internal_error'],
  503: ['service_unavailable', 'connector_unavailable'],
};

/** contract.md section 3 and the interface spec's "Named error codes" that are HTTP answers. */
const CONTRACT_CODES: ReadonlyArray<readonly [ApiErrorCode, number]> = [
  ['invalid_json', 400],
  ['validation_failed', 422],
  ['unauthorized', 401],
  ['forbidden', 403],
  ['not_found', 404],
  ['idempotency_conflict', 409],
  ['invalid_state', 409],
  ['payment_not_capturable', 409],
  ['payment_expired', 410],
  ['checkout_not_configured', 422],
  ['hosted_checkout_required', 422],
  ['rate_limited', 429],
  ['service_unavailable', 503],
];

describe('edge error status table', () => {
  const everyCode: readonly ApiErrorCode[] = [...ERROR_CODES, ...EDGE_ERROR_CODES];

  it('is exhaustive by type (checked by tsc)', () => {
    expect(everyCodeHasAStatus).to.equal(STATUS_OF);
    expect(noStrayCode).to.equal(true);
    expect(unlistedCodesDoNotCompile).to.be.a('function');
  });

  it('gives every code the status clients rely on', () => {
    const expected = new Map(Object.entries(EXPECTED_STATUS).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)] as const)));
    for (const code of everyCode) {
      expect(statusForCode(code), code).to.equal(expected.get(code));
    }
    expect([...expected.keys()].sort()).to.deep.equal([...everyCode].sort());
  });

  it('lists each code once, in one list only, and maps nothing else', () => {
    expect(new Set(everyCode).size).to.equal(everyCode.length);
    expect(Object.keys(STATUS_OF).sort()).to.deep.equal([...everyCode].sort());
  });

  it('has every code the contract names, with its status', () => {
    for (const [code, status] of CONTRACT_CODES) {
      expect(everyCode, code).to.include(code);
      expect(statusForCode(code), code).to.equal(status);
    }
  });

  it('uses snake_case codes and error statuses only', () => {
    for (const code of everyCode) {
      expect(code).to.match(/^[a-z]+(_[a-z]+)*$/);
      expect(statusForCode(code), code).to.be.within(400, 599);
    }
  });

  it('gives an edge error the status of its code, and the domain errors their codes', () => {
    for (const code of everyCode) expect(new HttpError(code, 'refused').status, code).to.equal(STATUS_OF[code]);
    expect(new NotFoundError('payment', 'pay_1').code).to.equal('not_found');
    expect(new InvalidStateError('payment', 'captured', 'void').code).to.equal('invalid_state');
  });
});
