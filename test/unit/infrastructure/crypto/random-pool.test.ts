import { expect } from 'chai';
import { RandomPool } from '../../../../infrastructure/crypto/random-pool';

describe('RandomPool', () => {
  it('hands out hex and decimal strings of the asked length', () => {
    const pool = new RandomPool();
    expect(pool.hex(12)).to.match(/^[0-9a-f]{24}$/);
    expect(pool.digits(20)).to.match(/^[0-9]{20}$/);
  });

  it('keeps drawing past its 4 KB pool, and does not repeat itself', () => {
    const pool = new RandomPool();
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) seen.add(pool.hex(12)); // 12,000 bytes: the pool is refilled twice
    expect(seen.size).to.equal(1_000);
  });

  it('hands out byte buffers of the asked length, never the same bytes twice, across refills and larger than the pool', () => {
    const pool = new RandomPool();
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const drawn = pool.bytes(i % 2 === 0 ? 12 : 32); // 22,000 bytes: the pool is refilled five times
      expect(drawn.length).to.equal(i % 2 === 0 ? 12 : 32);
      seen.add(drawn.toString('hex'));
    }
    expect(seen.size).to.equal(1_000);
    expect(pool.bytes(10_000).length).to.equal(10_000);
  });

  it('gives every decimal digit about equally often', () => {
    const pool = new RandomPool();
    const counts = new Array<number>(10).fill(0);
    for (const digit of pool.digits(1_000_000)) counts[Number(digit)]! += 1;
    // Expected 100,000 each (standard deviation 300); byte % 10 without rejection would give 0-5 about 101,560 and
    // 6-9 about 97,660, outside these bounds.
    for (const count of counts) expect(count).to.be.within(98_800, 101_200);
  });
});
