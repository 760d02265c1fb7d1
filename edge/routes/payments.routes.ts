import type { ManageCustomers } from '../../application/customers/manage-customers';
import type { ManagePaymentMethods } from '../../application/customers/manage-payment-methods';
import type { CapturePayment } from '../../application/payments/capture-payment';
import type { CreateCardPaymentCommand, CreatePayment } from '../../application/payments/create-payment';
import type { GetPayment } from '../../application/payments/get-payment';
import type { ListPayments } from '../../application/payments/list-payments';
import type { PaymentSummary } from '../../application/payments/payment-summary';
import type { RefundPayment } from '../../application/payments/refund-payment';
import type { VoidPayment } from '../../application/payments/void-payment';
import { DECLINE_REASONS } from '../../domain/payment/decline';
import { METHOD_TYPES, type Currency } from '../../domain/payment/payment';
import { PAYMENT_STATUSES } from '../../domain/payment/payment.transitions';
import { refuseCardDataInText, refuseSensitiveCardData } from '../../domain/payment/sensitive-card-data';
import { DomainError } from '../../domain/shared/domain-error';
import { tenantScopeOf } from '../http/principal';
import { queryDate, queryList, queryOneOf } from '../http/query-values';
import { defineRoute, type RouteDefinition } from '../http/route';
import {
  captureBody,
  createCustomerBody,
  createPaymentBody,
  listCustomersQuery,
  listPaymentsQuery,
  refundBody,
  savePaymentMethodBody,
  summaryQuery,
  updateCustomerBody,
  voidBody,
  paymentResponse,
  paymentViewResponse,
  paymentListResponse,
  summaryResponse,
  customerResponse,
  paymentMethodResponse,
  customerListResponse,
  paymentMethodListResponse,
  deletedPaymentMethodResponse,
} from './payments.schemas';

export interface PaymentRouteDeps {
  readonly create: CreatePayment;
  readonly capture: CapturePayment;
  readonly void: VoidPayment;
  readonly refund: RefundPayment;
  readonly get: GetPayment;
  readonly list: ListPayments;
  readonly summary: PaymentSummary;
  readonly customers: ManageCustomers;
  readonly paymentMethods: ManagePaymentMethods;
}


/**
 * The request's Idempotency-Key, for a money operation to bind to itself: repeating the key after the operation
 * was settled without it (its first answer was lost) answers the payment instead of executing again.
 */
function idempotencyKeyOf(request: { headers: Readonly<Record<string, string | string[] | undefined>> }): { idempotencyKey?: string } {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? { idempotencyKey: key } : {};
}

/**
 * The free-text fields a merchant could paste a card number into (spec, Authentication 8: card numbers are never
 * accepted). Identifiers the merchant chooses (externalId, metadata keys, numbers) are left alone: numeric order
 * ids of 13 to 19 digits pass Luhn one time in ten, and refusing them would be a false alarm, not a protection.
 */
function freeTextFields(body: Record<string, any>): Array<[string, unknown]> {
  const fields: Array<[string, unknown]> = [
    ['body.description', body.description],
    ['body.softDescriptor', body.softDescriptor],
    ['body.card.holderName', body.card?.holderName],
    ['body.reason', body.reason],
  ];
  for (const [key, value] of Object.entries(body.metadata ?? {})) fields.push([`body.metadata.${key}`, value]);
  (body.items ?? []).forEach((item: { name?: unknown; sku?: unknown }, index: number) => fields.push([`body.items[${index}].name`, item.name], [`body.items[${index}].sku`, item.sku]));
  (body.fraudAnalysis?.merchantDefinedFields ?? []).forEach((field: { value?: unknown }, index: number) => fields.push([`body.fraudAnalysis.merchantDefinedFields[${index}].value`, field.value]));
  return fields;
}

/** Card numbers or security codes written into the body's free text (spec, Authentication 8). */
function refuseCardNumbersInText(body: Record<string, any>): void {
  refuseCardDataInText({ metadata: body.metadata, metadataParam: 'body.metadata', freeText: freeTextFields(body) });
}

function checkFraudAnalysis(body: { fraudAnalysis?: { merchantDefinedFields?: Array<{ id: number; value: string }> } }): void {
  const fields = body.fraudAnalysis?.merchantDefinedFields ?? [];
  const seen = new Set<number>();
  fields.forEach((field, index) => {
    const param = `body.fraudAnalysis.merchantDefinedFields[${index}]`;
    if (seen.has(field.id)) throw new DomainError('validation_failed', `${param}.id ${field.id} is repeated; each id may appear once.`, { param: `${param}.id` });
    seen.add(field.id);
  });
}

/** Brands are free text on the payment (card.brand), so their list is not checked against a set. */
const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter(Boolean) : undefined);
const DECLINE_REASONS_NAMED = 'the canonical decline reasons of the decline table (e.g. INSUFFICIENT_FUNDS, DO_NOT_HONOR, STOLEN_CARD)';

export function paymentRoutes(deps: PaymentRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/payments', operationId: 'createPayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Create and process a payment',
      description:
        'Card payments with card.token (vault token) or paymentMethodId, routed by the flow named in flowId, else by the environment\'s active ' +
        'published flow, else directly among its enabled accounts (lowest costBasisPoints first); a technical failure or timeout falls back to the next account. An issuer decline is not an HTTP error: 201 with status failed and decline. ' +
        'Card numbers and CVV are refused with 422 sensitive_card_data.',
      successStatus: 201, idempotent: true, body: createPaymentBody,
      handler: async (request) => {
        const body = request.body as Record<string, any>;
        refuseSensitiveCardData(body);
        refuseCardNumbersInText(body);
        checkFraudAnalysis(body);
        const command: CreateCardPaymentCommand = { ...(body as Omit<CreateCardPaymentCommand, 'scope'>), scope: tenantScopeOf(request.principal), ...idempotencyKeyOf(request) };
        return { body: await deps.create.execute(command) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/payments', operationId: 'listPayments', response: paymentListResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:read'],
      summary: 'List payments (newest first, cursor paging, filters and search)', successStatus: 200, query: listPaymentsQuery,
      handler: async (request) => {
        const q = request.query as Record<string, any>;
        return {
          body: await deps.list.execute({
            scope: tenantScopeOf(request.principal),
            query: {
              limit: q.limit,
              startingAfter: q.startingAfter,
              createdBefore: queryDate(q.createdBefore, 'query.createdBefore'),
              createdAfter: queryDate(q.createdAfter, 'query.createdAfter'),
              hasFallback: q.hasFallback,
              search: q.search,
              amountMin: q.amountMin,
              amountMax: q.amountMax,
              initiator: q.initiator,
              methodTypes: queryList(q.methodType, METHOD_TYPES, 'query.methodType'),
              brands: list(q.brand),
              connectorSlug: q.connector,
              connectorAccountId: q.connectorAccountId,
              statuses: queryList(q.status, PAYMENT_STATUSES, 'query.status'),
              declineReason: queryOneOf(q.declineReason, DECLINE_REASONS, 'query.declineReason', DECLINE_REASONS_NAMED),
            },
          }),
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/payments/summary', operationId: 'paymentSummary', response: summaryResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:read'],
      summary: 'Payment figures in one currency for a period (at most a year), the previous period, a series and per connector account', successStatus: 200, query: summaryQuery,
      handler: async (request) => {
        const q = request.query as { from?: string; to?: string; currency: Currency };
        return {
          body: await deps.summary.execute({
            scope: tenantScopeOf(request.principal),
            from: queryDate(q.from, 'query.from'),
            to: queryDate(q.to, 'query.to'),
            currency: q.currency,
          }),
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/payments/:id', operationId: 'getPayment', response: paymentViewResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:read'],
      summary: 'Full payment view (attempts, operations, refunds, timeline, allowed actions)', successStatus: 200,
      handler: async (request) => ({ body: await deps.get.execute({ scope: tenantScopeOf(request.principal), paymentId: request.params.id! }) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/payments/:id/capture', operationId: 'capturePayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Capture all or part of a manual-capture authorization', successStatus: 201, idempotent: true, body: captureBody,
      handler: async (request) => ({
        body: await deps.capture.execute({
          scope: tenantScopeOf(request.principal),
          paymentId: request.params.id!,
          amount: (request.body as { amount?: number } | undefined)?.amount,
          ...idempotencyKeyOf(request),
        }),
      }),
    }),
    defineRoute({
      method: 'post', path: '/v1/payments/:id/void', operationId: 'voidPayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Void an authorized, uncaptured card payment', successStatus: 201, idempotent: true, body: voidBody,
      handler: async (request) => {
        refuseCardNumbersInText((request.body ?? {}) as Record<string, unknown>);
        return {
        body: await deps.void.execute({
          scope: tenantScopeOf(request.principal),
          paymentId: request.params.id!,
          reason: (request.body as { reason?: string } | undefined)?.reason,
          ...idempotencyKeyOf(request),
        }),
        };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/payments/:id/refund', operationId: 'refundPayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Refund all or part of the captured amount (several partial refunds allowed)', successStatus: 201, idempotent: true, body: refundBody,
      handler: async (request) => {
        const body = (request.body ?? {}) as { amount?: number; reason?: string; metadata?: Record<string, unknown> };
        refuseCardNumbersInText(body);
        return { body: await deps.refund.execute({ scope: tenantScopeOf(request.principal), paymentId: request.params.id!, ...body, ...idempotencyKeyOf(request) }) };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/customers', operationId: 'createCustomer', response: customerResponse, tag: 'Customers', auth: 'merchant', scopes: ['customers:write'],
      summary: 'Create a customer', successStatus: 201, idempotent: true, body: createCustomerBody,
      handler: async (request) => ({ body: await deps.customers.create(tenantScopeOf(request.principal), request.body) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/customers', operationId: 'listCustomers', tag: 'Customers', auth: 'merchant', scopes: ['customers:read'],
      summary: 'List customers (newest first)', successStatus: 200, query: listCustomersQuery,
      response: customerListResponse,
      handler: async (request) => ({ body: await deps.customers.list(tenantScopeOf(request.principal), request.query) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/customers/:id', operationId: 'getCustomer', response: customerResponse, tag: 'Customers', auth: 'merchant', scopes: ['customers:read'],
      summary: 'Get a customer', successStatus: 200,
      handler: async (request) => ({ body: await deps.customers.get(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'patch', path: '/v1/customers/:id', operationId: 'updateCustomer', response: customerResponse, tag: 'Customers', auth: 'merchant', scopes: ['customers:write'],
      summary: 'Update a customer (omitted fields stay; null clears)', successStatus: 200, body: updateCustomerBody,
      handler: async (request) => ({ body: await deps.customers.update(tenantScopeOf(request.principal), request.params.id!, request.body ?? {}) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/customers/:id/payment-methods', operationId: 'listPaymentMethods', tag: 'Customers', auth: 'merchant', scopes: ['customers:read'],
      summary: "List a customer's saved payment methods", successStatus: 200,
      response: paymentMethodListResponse,
      handler: async (request) => ({ body: await deps.paymentMethods.list(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/customers/:id/payment-methods', operationId: 'savePaymentMethod', response: paymentMethodResponse, tag: 'Customers', auth: 'merchant', scopes: ['customers:write'],
      summary: 'Save a card on a customer (verify: zero-value authorization, emits payment_method.verified)', successStatus: 201, idempotent: true,
      body: savePaymentMethodBody,
      handler: async (request) => {
        refuseSensitiveCardData(request.body as Record<string, unknown>);
        return { body: await deps.paymentMethods.save(tenantScopeOf(request.principal), request.params.id!, request.body) };
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/payment-methods/:id', operationId: 'deletePaymentMethod', tag: 'Customers', auth: 'merchant', scopes: ['customers:write'],
      summary: 'Remove a saved payment method', successStatus: 200,
      response: deletedPaymentMethodResponse,
      handler: async (request) => ({ body: await deps.paymentMethods.remove(tenantScopeOf(request.principal), request.params.id!) }),
    }),
  ];
}
