import { expect } from 'chai';
import { Writable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DatabaseError } from 'pg';
import { createLogger } from '../../../../infrastructure/logging/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, logger: createLogger('info', stream) };
}

/** What MikroORM raises: knex put the statement and its literals before the driver's message. */
function driverException(): Error {
  const cause = Object.assign(new Error(`insert into customers (email) values ('ana@example.com') - duplicate key value violates unique constraint "customers_email_key"`), {
    code: '23505',
    detail: 'Key (email)=(ana@example.com) already exists.',
    constraint: 'customers_email_key',
    table: 'customers',
  });
  return new UniqueConstraintViolationException(cause);
}

describe('JSON logs of database errors', () => {
  it('logs a MikroORM exception by its codes, without the statement, its values or the row it quotes', () => {
    const { lines, logger } = capture();
    logger.error({ err: driverException() }, 'unexpected error');
    expect(lines[0]).not.to.match(/insert into|ana@example\.com|Key \(email\)/);
    expect(JSON.parse(lines[0]).err).to.include({ type: 'UniqueConstraintViolationException', code: '23505', constraint: 'customers_email_key', table: 'customers' });
  });

  it("logs pg's own errors the same way (their detail and where quote values)", () => {
    const { lines, logger } = capture();
    const error = Object.assign(new DatabaseError('invalid input syntax for type integer: "4111111111111111"', 100, 'error'), {
      code: '22P02',
      where: `SQL statement "select 1 from payments where amount = '4111111111111111'"`,
    });
    logger.warn({ err: error }, 'failed');
    expect(lines[0]).not.to.match(/4111111111111111|select 1/);
    expect(JSON.parse(lines[0]).err).to.include({ code: '22P02' });
  });

  it('an error caused by one keeps its own message, and its cause is logged by codes', () => {
    const { lines, logger } = capture();
    logger.error({ err: new Error('could not save the customer', { cause: driverException() }) }, 'failed');
    expect(lines[0]).not.to.match(/insert into|ana@example\.com/);
    const { err } = JSON.parse(lines[0]);
    expect(err.message).to.equal('could not save the customer');
    expect(err.cause).to.include({ code: '23505' });
  });

  it('other errors keep their message and stack', () => {
    const { lines, logger } = capture();
    logger.error({ err: new Error('the acquirer answered nonsense') }, 'failed');
    expect(JSON.parse(lines[0]).err.message).to.equal('the acquirer answered nonsense');
    expect(JSON.parse(lines[0]).err.stack).to.contain('the acquirer answered nonsense');
  });
});

