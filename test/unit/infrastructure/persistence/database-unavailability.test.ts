import { expect } from 'chai';
import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { databaseUnavailability } from '../../../../infrastructure/persistence/database-unavailability';
import { DependencyUnavailableError } from '../../../../domain/shared/dependency-unavailable';

const errnoError = (code: string, errno: number, message = `read ${code}`) => Object.assign(new Error(message), { code, errno, syscall: 'read' });
const sqlState = (code: string) => Object.assign(new Error('server message'), { code, severity: 'FATAL' });

describe('database unavailability: which driver failures mean the database cannot serve us now', () => {
  const unavailable: Array<[string, unknown, string]> = [
    ['a connection reset', errnoError('ECONNRESET', -104), 'ECONNRESET'],
    ['a connection refused', errnoError('ECONNREFUSED', -111, 'connect ECONNREFUSED 127.0.0.1:5432'), 'ECONNREFUSED'],
    ['a write on a closed socket', errnoError('EPIPE', -32), 'EPIPE'],
    ['the server shutting down (admin_shutdown)', sqlState('57P01'), '57P01'],
    ['the server crashed (crash_shutdown)', sqlState('57P02'), '57P02'],
    ['the server starting or in recovery (cannot_connect_now)', sqlState('57P03'), '57P03'],
    ['too many connections', sqlState('53300'), '53300'],
    ['a connection exception (class 08)', sqlState('08006'), '08006'],
    ['a connection terminated without an errno', new Error('Connection terminated unexpectedly'), 'connection_lost'],
    ['the pool gave no connection in time', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }), 'pool_timeout'],
    ['MikroORM wrapping a reset (statement first in the message)', new ConnectionException(errnoError('ECONNRESET', -104, 'select 1 - read ECONNRESET')), 'ECONNRESET'],
    ['MikroORM wrapping a lost connection', new ConnectionException(new Error('select 1 - Connection terminated unexpectedly')), 'connection_lost'],
  ];
  for (const [name, error, reason] of unavailable) {
    it(`${name} is unavailability (${reason}), whose message holds no statement`, () => {
      const labelled = databaseUnavailability(error);
      expect(labelled).to.be.instanceOf(DependencyUnavailableError);
      expect(labelled).to.include({ dependency: 'database', reason });
      expect(labelled!.message).not.to.contain('select');
    });
  }

  const refusals: Array<[string, unknown]> = [
    ['a unique violation', new UniqueConstraintViolationException(Object.assign(new Error('insert ... - duplicate key'), { code: '23505' }))],
    ['a serialization failure (retried by its unit, not the database being down)', sqlState('40001')],
    ['a lease lost (the service\'s own SQLSTATE)', sqlState('PL001')],
    ['a protocol violation (08P01: what the statement sent, e.g. a NUL in text)', sqlState('08P01')],
    ['a bug', new TypeError('x is undefined')],
    ['not an error', 'ECONNRESET'],
  ];
  for (const [name, error] of refusals) {
    it(`${name} is not`, () => expect(databaseUnavailability(error)).to.equal(null));
  }
});
