import { Recipient, type RecipientFields, type RecipientPatch, type RecipientPrimitives, type RecipientUpdatedEvent } from '../../domain/recipient/recipient';
import { assertCursorInScope } from '../shared/list-cursor';
import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox, NewEvent } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { RecipientListQuery, RecipientRepository } from '../../domain/ports/recipient-repository';
import type { Transactor } from '../../domain/ports/transactor';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';

export interface RecipientDeps {
  readonly transactor: Transactor;
  readonly outbox: EventOutbox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly recipients: RecipientRepository;
}

/** The public recipient (API answers and events' data.object): the contract's fields and nothing more. */
export function recipientObject(r: RecipientPrimitives) {
  return {
    object: 'recipient' as const,
    id: r.id,
    name: r.name,
    document: r.document,
    email: r.email,
    bankAccount: r.bankAccount,
    metadata: r.metadata,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function recipientEventToOutbox(event: RecipientUpdatedEvent): NewEvent {
  return {
    type: event.type,
    scope: { organizationId: event.organizationId, environment: event.environment },
    object: recipientObject(event.recipient),
    previousAttributes: { ...event.previousAttributes },
  };
}

/**
 * Create, read, update and list split recipients (contract.md 4). Creation emits nothing (the catalogue has only
 * recipient.updated); an update that changes something emits `recipient.updated` through the outbox in the
 * transaction that saves it, one that changes nothing writes nothing.
 */
export class ManageRecipients {
  constructor(private readonly deps: RecipientDeps) {}

  async create(scope: TenantScope, fields: RecipientFields) {
    const recipient = Recipient.create({ id: this.deps.ids.next('rcp_'), ...scope, ...fields, now: this.deps.clock.now() });
    await this.deps.transactor.run((tx) => this.deps.recipients.insert(tx, recipient));
    return recipientObject(recipient.toPrimitives());
  }

  async get(scope: TenantScope, id: string) {
    const recipient = await this.deps.transactor.read((tx) => this.deps.recipients.find(tx, scope, id));
    if (!recipient) throw new NotFoundError('recipient', id);
    return recipientObject(recipient.toPrimitives());
  }

  async update(scope: TenantScope, id: string, patch: RecipientPatch) {
    const recipient = await this.deps.transactor.run(async (tx) => {
      const found = await this.deps.recipients.find(tx, scope, id, { forUpdate: true });
      if (!found) throw new NotFoundError('recipient', id);
      if (!found.update(patch, this.deps.clock.now())) return found;
      await this.deps.recipients.update(tx, found);
      await this.deps.outbox.append(tx, found.pullEvents().map(recipientEventToOutbox));
      return found;
    });
    return recipientObject(recipient.toPrimitives());
  }

  async list(scope: TenantScope, query: RecipientListQuery) {
    const rows = await this.deps.transactor.read(async (tx) => {
      await assertCursorInScope(query.startingAfter, 'recipient', (id) => this.deps.recipients.find(tx, scope, id));
      return this.deps.recipients.list(tx, scope, query);
    });
    return {
      object: 'list' as const,
      data: rows.slice(0, query.limit).map((r) => recipientObject(r.toPrimitives())),
      hasMore: rows.length > query.limit,
    };
  }
}
