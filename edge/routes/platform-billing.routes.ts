import type { BillingOverview } from '../../application/billing/billing-overview';
import type { GetProductionAccess } from '../../application/billing/get-production-access';
import type { InvoiceStatusFilter, PlatformInvoices } from '../../application/billing/platform-invoices';
import type { SubscribeToPlan } from '../../application/billing/subscribe-to-plan';
import { catalogView } from '../../application/billing/billing-views';
import type { PlanCatalog } from '../../domain/billing/plan-catalog';
import { defineRoute, type RouteDefinition } from '../http/route';
import { sessionOf } from './session.authenticator';

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

/**
 * Platform billing is per company (brands share it) and does not depend on the selected environment: every route
 * answers the same with a sandbox or a live credential.
 */
export function platformBillingRoutes(deps: PlatformBillingRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/platform-billing/catalog', operationId: 'getPlatformBillingCatalog', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'The plan catalog in force: its version, monthly and annual prices, included payments and per-payment prices (cents)', successStatus: 200,
      handler: async () => ({ body: catalogView(deps.catalog) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/access', operationId: 'getPlatformBillingAccess', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'Whether live payments are allowed: the free production trial (30 days or 50 payments) and the plan', successStatus: 200,
      handler: async ({ principal }) => ({ body: await deps.access.execute(principal!.organizationId) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/platform-billing/subscribe', operationId: 'subscribePlatformPlan', tag: TAG, auth: 'session', successStatus: 201,
      summary: 'Subscribe the company to a plan (owner session, terms accepted); monthly post-paid, annual prepaid at 10 monthly fees, no card debit',
      body: subscribeSchema,
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
      handler: async ({ principal }) => ({ body: await deps.overview.execute(principal!.organizationId) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/invoices', operationId: 'listPlatformInvoices', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'Platform invoices, newest first; status open, paid or overdue (open past its due date)', successStatus: 200, query: invoiceListQuery,
      handler: async ({ principal, query }) => ({ body: await deps.invoices.list(principal!.organizationId, (query as { status?: InvoiceStatusFilter }).status) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/platform-billing/invoices/:id', operationId: 'getPlatformInvoice', tag: TAG, auth: 'merchant', scopes: ['billing:read'],
      summary: 'One platform invoice: calculation lines, receipts, adjustments, balance, and payment instructions while an amount is due', successStatus: 200,
      handler: async ({ principal, params }) => ({ body: await deps.invoices.get(principal!.organizationId, params.id!) }),
    }),
  ];
}
