import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import type { Core } from '../../../../infrastructure/main/core';
import { CONNECTORS_MODULE } from '../../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../../infrastructure/main/flows.module';
import { IDENTITY_MODULE } from '../../../../infrastructure/main/identity.module';
import { moduleList, type ModuleDefinition } from '../../../../infrastructure/main/module';
import { MODULES } from '../../../../infrastructure/main/modules';
import { paymentsModule } from '../../../../infrastructure/main/payments.module';

chai.use(chaiAsPromised);

// The modules below never read the core: nothing of it is needed to check the wiring.
const core = {} as Core;

interface Counter {
  next(): number;
}

const COUNTER_MODULE: ModuleDefinition<unknown, { readonly counter: Counter }> = {
  name: 'counter',
  build: () => {
    let n = 0;
    return { provides: { counter: { next: () => ++n } } };
  },
};

function readerModule(seen: number[]): ModuleDefinition<{ readonly counter: Counter }, { readonly firstRead: number }> {
  return {
    name: 'reader',
    build: async (_core, needs) => {
      seen.push(needs.counter.next());
      return { provides: { firstRead: seen[0]! } };
    },
  };
}

describe('module wiring (infrastructure/main/module.ts)', () => {
  it('builds modules in order, giving each the typed services of the modules before it', async () => {
    const seen: number[] = [];
    const built = await moduleList().with(COUNTER_MODULE).with(readerModule(seen)).build(core);
    expect(seen).to.deep.equal([1]);
    expect(built.instances).to.have.length(2);
    expect(built.services.firstRead).to.equal(1);
    expect(built.services.counter.next()).to.equal(2); // the very service the reader was given
  });

  it('refuses a module that provides a service an earlier module provides', async () => {
    const list = moduleList().with(COUNTER_MODULE).with(COUNTER_MODULE);
    await expect(list.build(core)).to.be.rejectedWith('module counter provides counter again');
  });

  it('builds nothing until asked, and an empty list provides nothing', async () => {
    const built = await moduleList().build(core);
    expect(built.instances).to.deep.equal([]);
    expect(built.services).to.deep.equal({});
  });

  it('lists the product modules in dependency order: flows before the connectors that ask them, billing (the live-payment gate) before payments, payments before subscriptions', () => {
    expect(MODULES.names).to.deep.equal(['identity', 'flows', 'connectors', 'billing', 'payments', 'subscriptions', 'webhooks']);
  });

  it('makes a missing or mistyped dependency a compile error (checked by tsc --noEmit)', () => {
    // Lists are only composed here, never built: the assertions are the @ts-expect-error lines.
    // @ts-expect-error payments need the connector accounts
    moduleList().with(IDENTITY_MODULE).with(paymentsModule());
    // @ts-expect-error connectors need flows' connectorAccountUsage, and flows come after them here
    moduleList().with(CONNECTORS_MODULE).with(FLOWS_MODULE);
    const NOT_A_GUARD: ModuleDefinition<unknown, { readonly securityGuard: string }> = { name: 'wrong', build: () => ({ provides: { securityGuard: 'guard' } }) };
    // @ts-expect-error payments take an optional card-security guard, and a string is not one
    moduleList().with(NOT_A_GUARD).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule());
    // The same list with the dependencies in place compiles.
    expect(moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()).names).to.have.length(4);
  });
});
