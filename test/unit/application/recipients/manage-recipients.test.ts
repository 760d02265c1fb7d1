import { expect } from 'chai';
import { ManageRecipients } from '../../../../application/recipients/manage-recipients';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { recipientInput } from '../../../support/builders/recipient.builder';
import { FakeOutbox, FakeTransactor, InMemoryRecipients, SequentialIds, SteppingClock } from '../../../support/payment-fakes';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

function world() {
  const recipients = new InMemoryRecipients();
  const saved: string[] = [];
  const update = recipients.update.bind(recipients);
  recipients.update = async (tx, recipient) => {
    saved.push(recipient.toPrimitives().id);
    await update(tx, recipient);
  };
  const outbox = new FakeOutbox();
  const manage = new ManageRecipients({ transactor: new FakeTransactor(), outbox, clock: new SteppingClock(undefined, 1_000), ids: new SequentialIds(), recipients });
  return { recipients, saved, outbox, manage };
}

describe('ManageRecipients', () => {
  it('creates a recipient and emits nothing (the catalogue has only recipient.updated)', async () => {
    const { recipients, outbox, manage } = world();
    const created = await manage.create(scope, recipientInput());
    expect(created.id).to.match(/^rcp_/);
    expect((await recipients.find({} as never, scope, created.id))!.toPrimitives().name).to.equal('Loja da Ana');
    expect(outbox.events).to.have.length(0);
  });

  it('an update that changes something is saved and emits recipient.updated with the previous attributes', async () => {
    const { recipients, outbox, manage } = world();
    const { id } = await manage.create(scope, recipientInput());
    const updated = await manage.update(scope, id, { name: 'Loja da Ana Filial', email: 'ana@example.com' });
    expect(updated).to.include({ name: 'Loja da Ana Filial', email: 'ana@example.com' });
    expect((await recipients.find({} as never, scope, id))!.toPrimitives().name).to.equal('Loja da Ana Filial');
    expect(outbox.types()).to.deep.equal(['recipient.updated']);
    expect(outbox.events[0]!.previousAttributes).to.deep.equal({ name: 'Loja da Ana', email: null });
    expect(outbox.events[0]!.scope).to.deep.equal(scope);
  });

  it('an update that changes nothing writes nothing and emits nothing', async () => {
    const { saved, outbox, manage } = world();
    const { id, updatedAt } = await manage.create(scope, recipientInput());
    const same = await manage.update(scope, id, { name: 'Loja da Ana' });
    expect(same.updatedAt).to.equal(updatedAt);
    expect(saved).to.deep.equal([]);
    expect(outbox.events).to.have.length(0);
  });

  it('a refused update (an invalid document) changes nothing and emits nothing', async () => {
    const { recipients, outbox, manage } = world();
    const { id } = await manage.create(scope, recipientInput());
    const before = (await recipients.find({} as never, scope, id))!.toPrimitives();
    await expect(manage.update(scope, id, { name: 'New name', document: '11.111.111/1111-11' })).to.be.rejectedWith(DomainError);
    expect((await recipients.find({} as never, scope, id))!.toPrimitives()).to.deep.equal(before);
    expect(outbox.events).to.have.length(0);
  });

  it('a recipient of another environment, or none, is not found for reads and updates', async () => {
    const { manage } = world();
    const { id } = await manage.create(scope, recipientInput());
    const live = { ...scope, environment: 'live' as const };
    await expect(manage.get(live, id)).to.be.rejectedWith(NotFoundError);
    await expect(manage.update(live, id, { name: 'x' })).to.be.rejectedWith(NotFoundError);
    await expect(manage.get(scope, 'rcp_missing')).to.be.rejectedWith(NotFoundError);
  });
});
