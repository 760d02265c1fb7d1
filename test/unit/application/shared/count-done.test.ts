import { expect } from 'chai';
import { countDone } from '../../../../application/shared/count-done';

describe('countDone', () => {
  it('counts the work that resolved true', async () => {
    expect(await countDone([Promise.resolve(true), Promise.resolve(false), Promise.resolve(true)])).to.equal(2);
    expect(await countDone([])).to.equal(0);
  });

  it('rethrows the first failure only once every piece of work has finished', async () => {
    let slowFinished = false;
    const slow = new Promise<boolean>((resolve) => setTimeout(() => {
      slowFinished = true;
      resolve(true);
    }, 30));
    const failure = new Error('one item failed');
    await countDone([Promise.reject(failure), slow, Promise.reject(new Error('a later failure'))]).then(
      () => expect.fail('should rethrow'),
      (error) => expect(error).to.equal(failure),
    );
    expect(slowFinished, 'the slow item was not cut short').to.equal(true);
  });
});
