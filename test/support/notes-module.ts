/**
 * A tiny capability used only by the foundation's tests: tenant-scoped records written with an event in
 * one transaction, an idempotent create, a rate-limited route, a paged list, and a controllable readiness
 * check. It exercises the edge and the outbox without depending on any product capability.
 */
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import { defineRoute } from '../../edge/http/route';
import { PAGE_QUERY_PROPERTIES, listBody } from '../../edge/http/pagination';
import { entityManager } from '../../infrastructure/persistence/mikro-orm-transactor';
import type { ModuleDefinition } from '../../infrastructure/main/module';

export interface NotesControls {
  ready: boolean;
  /** When set, creates wait for it (to hold a request in flight). */
  gate: Promise<void> | null;
  handled: number;
}

export function notesModule(controls: NotesControls): ModuleDefinition {
  return {
    name: 'test-notes',
    async build(core) {
      await core.orm.em.fork({ useContext: false }).execute(
        `create table if not exists test_notes (id text primary key, organization_id text not null, environment text not null, text text not null, amount int8 not null)`,
      );
      return {
        provides: {},
        readinessChecks: [{ name: 'notes-adapter', check: async () => controls.ready }],
        health: () => ({ notes: true }),
        routes: [
          defineRoute({
            method: 'post', path: '/v1/test-notes', operationId: 'createNote', tag: 'Test', auth: 'merchant', scopes: ['payments:write'],
            summary: 'Create a note', successStatus: 201, idempotent: true,
            body: {
              type: 'object',
              required: ['text', 'amount'],
              properties: {
                text: { type: 'string', minLength: 1, maxLength: 100 },
                amount: { type: 'integer', minimum: 1, maximum: 9999999999 },
                tags: { type: 'array', maxItems: 3, items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
              },
            },
            handler: async (request) => {
              controls.handled += 1;
              if (controls.gate) await controls.gate;
              if (request.body.text === 'refuse') throw new DomainError('amount_exceeds_available', 'Refused by a rule', { param: 'body.text' });
              if (request.body.text === 'explode') throw new Error('select * from secret_table -- internal detail');
              const scope = { organizationId: request.principal!.organizationId, environment: request.principal!.environment };
              const id = core.ids.next('note_');
              const note = { object: 'note', id, text: request.body.text, amount: request.body.amount };
              await core.transactor.run(async (tx) => {
                await entityManager(tx).execute(`insert into test_notes values (?, ?, ?, ?, ?)`, [id, scope.organizationId, scope.environment, note.text, note.amount]);
                await core.outbox.append(tx, [{ type: 'note.created', scope, object: note }]);
              });
              return { body: note };
            },
          }),
          defineRoute({
            method: 'get', path: '/v1/test-notes', operationId: 'listNotes', tag: 'Test', auth: 'merchant', scopes: ['payments:read'],
            summary: 'List notes', successStatus: 200,
            query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } },
            handler: async (request) => {
              const { limit, startingAfter } = request.query as { limit: number; startingAfter?: string };
              const principal = request.principal!;
              const rows = await core.orm.em.fork({ useContext: false }).execute(
                `select id, text, amount from test_notes where organization_id = ? and environment = ? ${startingAfter ? 'and id < ?' : ''} order by id desc limit ?`,
                [principal.organizationId, principal.environment, ...(startingAfter ? [startingAfter] : []), limit + 1],
              );
              return { body: listBody(rows, limit, (row) => ({ object: 'note', ...row })) };
            },
          }),
          defineRoute({
            method: 'get', path: '/v1/test-notes/:id', operationId: 'getNote', tag: 'Test', auth: 'merchant', scopes: ['payments:read'],
            summary: 'Get a note', successStatus: 200,
            handler: async (request) => {
              const principal = request.principal!;
              const rows = await core.orm.em.fork({ useContext: false }).execute(
                `select id, text, amount from test_notes where id = ? and organization_id = ? and environment = ?`,
                [request.params.id, principal.organizationId, principal.environment],
              );
              if (!rows[0]) throw new NotFoundError('note', request.params.id);
              return { body: { object: 'note', ...rows[0] } };
            },
          }),
          defineRoute({
            method: 'post', path: '/v1/test-notes/:id/ping', operationId: 'pingNote', tag: 'Test', auth: 'merchant',
            summary: 'Rate-limited ping', successStatus: 200,
            rateLimits: [{ name: 'note-ping', points: 3, durationSeconds: 60, key: (request) => `${request.principal!.organizationId}:${request.params.id}` }],
            handler: async () => ({ body: { pong: true } }),
          }),
        ],
      };
    },
  };
}
