import type { BillingOverview } from '../../application/billing/billing-overview';
import type { GetProductionAccess } from '../../application/billing/get-production-access';
import type { InvoiceStatusFilter, PlatformInvoices } from '../../application/billing/platform-invoices';
import type { SubscribeToPlan } from '../../application/billing/subscribe-to-plan';
import { catalogView } from '../../application/billing/billing-views';
import type { PlanCatalog } from '../../domain/billing/plan-catalog';
import { defineRoute, type RouteDefinition } from '../http/route';
import { sessionOf } from './session.authenticator';
import { bool, dateTime, int, listOf, nullable, objectName, record, str } from '../http/response-schemas';
import type { JsonSchema } from '../http/validation';

export interface PlatformBillingRouteDeps {
  readonly catalog: PlanCatalog;
  readonly access: GetProductionAccess;
  readonly subscribe: SubscribeToPlan;
  readonly overview: BillingOverview;
  readonly invoices: PlatformInvoices;
}

const TAG = 'Platform billing';

const subscribeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['planCode', 'acceptedTerms'],
  properties: {
    planCode: { type: 'string', minLength: 2, maxLength: 50 },
    billingInterval: { type: 'string', enum: ['monthly', 'annual'], default: 'monthly' },
    planVersion: { type: 'integer', minimum: 1, maximum: 2147483647 },
    acceptedTerms: { type: 'boolean', enum: [true] },
  },
  examples: [{ planCode: 'starter', billingInterval: 'monthly', planVersion: 1, acceptedTerms: true }],
};

const invoiceListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['open', 'paid', 'overdue'] } },
};

// ---- response shapes (documentation only; money in integer cents of the catalog's currency) --------------------

const cents = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const month: JsonSchema = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$', examples: ['2026-01'] };
const invoiceKind: JsonSchema = { type: 'string', enum: ['monthly', 'annual_prepaid'] };
const invoiceStatus: JsonSchema = { type: 'string', enum: ['open', 'paid'], description: 'An open invoice past its due date is also overdue' };

const planResponse: JsonSchema = record({
  code: str, name: str, monthlyFee: cents(), annualFee: cents('Prepaid: 10 monthly fees'), includedPayments: int, perPayment: cents('Each production payment past the included ones'),
});
const catalogResponse: JsonSchema = record({ object: objectName('platform_billing_catalog'), version: int, currency: str, plans: { type: 'array', items: planResponse } });

const subscriptionResponse: JsonSchema = record({
  object: objectName('platform_subscription'),
  plan: planResponse,
  planVersion: int,
  billingInterval: { type: 'string', enum: ['monthly', 'annual'] },
  status: { type: 'string', enum: ['active', 'awaiting_settlement'], description: 'An annual plan waits for its prepaid invoice to be settled' },
  startedAt: dateTime,
  paidThrough: nullable(dateTime),
  productionReleasedAt: nullable(dateTime),
  prepaidInvoiceId: nullable(str),
});

const accessResponse: JsonSchema = record({
  object: objectName('platform_billing_access'),
  companyId: str,
  production: record({ allowed: bool, through: nullable({ type: 'string', enum: ['plan', 'trial'] }) }),
  trial: record({
    status: { type: 'string', enum: ['active', 'ended', 'not_eligible'] },
    endedBy: nullable({ type: 'string', enum: ['days', 'payments'] }),
    endsAt: dateTime,
    daysLimit: int,
    paymentsLimit: int,
    paymentsUsed: int,
    paymentsRemaining: int,
  }),
  plan: nullable(subscriptionResponse),
});

const lineResponse: JsonSchema = record({ description: str, quantity: int, unitAmount: cents(), amount: cents() });
const entryResponse: JsonSchema = record({ id: str, amount: cents(), note: str, recordedAt: dateTime });
const invoiceResponse: JsonSchema = record({
  object: objectName('platform_invoice'),
  id: str,
  kind: invoiceKind,
  month: nullable({ ...month, description: 'The billed month; null for an annual prepaid invoice' }),
  currency: str,
  status: invoiceStatus,
  overdue: bool,
  issuedAt: dateTime,
  dueAt: dateTime,
  lines: { type: 'array', items: lineResponse },
  total: cents(),
  receipts: { type: 'array', items: entryResponse },
  adjustments: { type: 'array', items: entryResponse },
  balance: cents('What is still due'),
  paymentInstructions: nullable({
    type: 'object',
    description: 'Only while an amount is due, as the operator configured them',
    required: ['beneficiary'],
    properties: { beneficiary: str, pixKey: str, pixCopyPaste: str, boleto: str, bankAccount: str },
  }),
});

const subscribedResponse: JsonSchema = {
  ...subscriptionResponse,
  required: [...(subscriptionResponse.required as string[]), 'invoice'],
  properties: { ...(subscriptionResponse.properties as object), invoice: nullable({ ...invoiceResponse, description: 'The prepaid invoice of an annual plan' }) },
};

const overviewResponse: JsonSchema = record({
  object: objectName('platform_billing_overview'),
  currency: str,
  timeZone: { type: 'string', examples: ['America/Sao_Paulo'] },
  plan: nullable(subscriptionResponse),
  currentMonth: record({
    month,
    productionPayments: int,
    billedPayments: int,
    lines: { type: 'array', items: lineResponse },
    partialInvoice: record({ total: cents() }),
    projection: record({ productionPayments: int, lines: { type: 'array', items: lineResponse }, total: cents() }),
  }),
  previousMonth: record({
    month,
    productionPayments: int,
    invoiceId: nullable(str),
    total: cents(),
    comparison: record({ productionPayments: int, total: cents() }),
  }),
  sandboxUsage: record({ month, payments: int, billed: { type: 'boolean', enum: [false] } }),
  nextInvoice: nullable(record({ month, issuesAt: dateTime, dueAt: dateTime, estimatedTotal: cents() })),
  history: { type: 'array', items: record({ id: str, kind: invoiceKind, month: nullable(month), total: cents(), balance: cents(), status: invoiceStatus, overdue: bool }) },
});

/**
 * Platform billing is per company (brands share it) and does not depend on the selected environment: every route
 * answers the same with a sandbox or a live credential.
 */
export function platformBillingRoutes(deps: PlatformBillingRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/platform-billing/catalog', operationId: 'getPlatformBillingCatalog', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'The plan catalog in force: its version, monthly and annual prices, included payments and per-payment prices (cents)', successStatus: 200,
      response: catalogResponse,
      handler: async () => ({ body: catalogView(deps.catalog) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/access', operationId: 'getPlatformBillingAccess', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'Whether live payments are allowed: the free production trial (30 days or 50 payments) and the plan', successStatus: 200,
      response: accessResponse,
      handler: async ({ principal }) => ({ body: await deps.access.execute(principal!.organizationId) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/platform-billing/subscribe', operationId: 'subscribePlatformPlan', tag: TAG, auth: 'session', successStatus: 201,
      summary: 'Subscribe the company to a plan (owner session, terms accepted); monthly post-paid, annual prepaid at 10 monthly fees, no card debit',
      body: subscribeSchema,
      response: subscribedResponse,
      handler: async ({ principal, body }) => {
        const session = sessionOf(principal);
        return {
          body: await deps.subscribe.execute({
            organizationId: session.organizationId,
            userId: session.userId,
            role: session.role,
            planCode: body.planCode,
            billingInterval: body.billingInterval,
            ...(body.planVersion !== undefined ? { planVersion: body.planVersion } : {}),
            acceptedTerms: body.acceptedTerms,
          }),
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/overview', operationId: 'getPlatformBillingOverview', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: "The plan, this month's production usage with computed lines, partial invoice and projection, the previous month, sandbox usage, next invoice and history",
      successStatus: 200,
      response: overviewResponse,
      handler: async ({ principal }) => ({ body: await deps.overview.execute(principal!.organizationId) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/invoices', operationId: 'listPlatformInvoices', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'Platform invoices, newest first; status open, paid or overdue (open past its due date)', successStatus: 200, query: invoiceListQuery,
      response: listOf(invoiceResponse),
      handler: async ({ principal, query }) => ({ body: await deps.invoices.list(principal!.organizationId, (query as { status?: InvoiceStatusFilter }).status) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/invoices/:id', operationId: 'getPlatformInvoice', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'One platform invoice: calculation lines, receipts, adjustments, balance, and payment instructions while an amount is due', successStatus: 200,
      response: invoiceResponse,
      handler: async ({ principal, params }) => ({ body: await deps.invoices.get(principal!.organizationId, params.id!) }),
    }),
  ];
}
