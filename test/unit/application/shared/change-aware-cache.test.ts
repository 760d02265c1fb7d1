import { expect } from 'chai';
import { ChangeAwareCache } from '../../../../application/shared/change-aware-cache';
import type { ChangeFeed, ChangeListener, ChangeTopic } from '../../../../domain/ports/change-feed';

/** A feed the test drives: announces changes, resets, goes offline. */
class ScriptedFeed implements ChangeFeed {
  live = true;
  private readonly listeners: ChangeListener[] = [];

  subscribe(_topic: ChangeTopic, listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  change(key: string): void {
    for (const listener of this.listeners) listener.onChange(key);
  }

  reset(): void {
    for (const listener of this.listeners) listener.onReset();
  }
}

interface Row {
  id: string;
  version: number;
}

/** A database row the loads read, counting them. */
function source() {
  const state = { row: { id: 'key_1', version: 1 } as Row | null, reads: 0 };
  const load = async () => {
    state.reads += 1;
    return state.row ? { ...state.row } : null;
  };
  return { state, load };
}

/** `time.now` in milliseconds, moved by the tests. */
function cache(feed: ScriptedFeed, time = { now: 0 }) {
  return new ChangeAwareCache<Row | null>(feed, 'api_keys', {
    changeKeyOf: (_cacheKey, row) => row?.id ?? '',
    keep: (row) => row !== null,
    ttlMs: 1_000,
    maxEntries: 2,
    clock: { now: () => new Date(time.now) },
  });
}

describe('ChangeAwareCache (in-memory reads dropped on announced changes)', () => {
  it('serves a second read from memory, and reads again once a change of that row is announced', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const db = source();
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 1 });
    db.state.row = { id: 'key_1', version: 2 };
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 1 });
    expect(db.state.reads).to.equal(1);

    feed.change('key_1');
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 2 });
    expect(db.state.reads).to.equal(2);
  });

  it('drops only the entries the change names', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const other = { row: { id: 'key_2', version: 1 }, reads: 0 };
    const loadOther = async () => {
      other.reads += 1;
      return other.row;
    };
    const db = source();
    await memory.get('hash_a', db.load);
    await memory.get('hash_b', loadOther);
    feed.change('key_2');
    await memory.get('hash_a', db.load);
    await memory.get('hash_b', loadOther);
    expect(db.state.reads).to.equal(1);
    expect(other.reads).to.equal(2);
  });

  it('does not keep a read that a change overlapped (it may have seen the row from before the change)', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const db = source();
    const stale = memory.get('hash_a', async () => {
      const row = await db.load();
      feed.change('key_1'); // committed elsewhere while this read was in flight
      return row;
    });
    expect(await stale).to.deep.equal({ id: 'key_1', version: 1 });
    db.state.row = null; // revoked
    expect(await memory.get('hash_a', db.load)).to.equal(null);
  });

  it('neither serves nor keeps anything while the feed is not live, and forgets everything on a reset', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const db = source();
    await memory.get('hash_a', db.load);
    feed.live = false;
    db.state.row = { id: 'key_1', version: 2 };
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 2 });
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 2 });
    expect(db.state.reads).to.equal(3);

    // Back online: what was remembered before may predate a change nobody heard of.
    db.state.row = { id: 'key_1', version: 3 };
    feed.live = true;
    feed.reset();
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 3 });
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 3 });
    expect(db.state.reads).to.equal(4);
  });

  it('does not keep values the caller says not to (an unknown key must work the moment it is created)', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const db = source();
    db.state.row = null;
    expect(await memory.get('hash_a', db.load)).to.equal(null);
    db.state.row = { id: 'key_1', version: 1 };
    expect(await memory.get('hash_a', db.load)).to.deep.equal({ id: 'key_1', version: 1 });
  });

  it('reads again after the time to live, and holds at most maxEntries (the oldest leave first)', async () => {
    const feed = new ScriptedFeed();
    const clock = { now: 0 };
    const memory = cache(feed, clock);
    const db = source();
    await memory.get('hash_a', db.load);
    clock.now = 999;
    await memory.get('hash_a', db.load);
    expect(db.state.reads).to.equal(1);
    clock.now = 1_000;
    await memory.get('hash_a', db.load);
    expect(db.state.reads).to.equal(2);

    await memory.get('hash_b', db.load);
    await memory.get('hash_c', db.load); // evicts hash_a, the oldest
    expect(db.state.reads).to.equal(4);
    await memory.get('hash_c', db.load);
    await memory.get('hash_b', db.load);
    expect(db.state.reads).to.equal(4);
    await memory.get('hash_a', db.load);
    expect(db.state.reads).to.equal(5);
  });

  it('reads several keys at once: remembered ones from memory, the others in ONE load, kept unless a change overlapped it', async () => {
    const feed = new ScriptedFeed();
    const memory = cache(feed);
    const loads: string[][] = [];
    const rows = new Map<string, Row>([
      ['a', { id: 'key_a', version: 1 }],
      ['b', { id: 'key_b', version: 1 }],
    ]);
    const loadMissing = async (missing: string[]) => {
      loads.push(missing);
      return new Map(missing.map((key) => [key, rows.get(key) ? { ...rows.get(key)! } : null]));
    };
    expect([...(await memory.getMany(['a'], loadMissing)).entries()]).to.deep.equal([['a', { id: 'key_a', version: 1 }]]);
    rows.set('a', { id: 'key_a', version: 2 });
    const both = await memory.getMany(['a', 'b'], loadMissing);
    expect(both.get('a')).to.deep.equal({ id: 'key_a', version: 1 }); // remembered
    expect(both.get('b')).to.deep.equal({ id: 'key_b', version: 1 });
    expect(loads).to.deep.equal([['a'], ['b']]);

    feed.change('key_a');
    expect((await memory.getMany(['a', 'b'], loadMissing)).get('a')).to.deep.equal({ id: 'key_a', version: 2 });
    expect(loads).to.deep.equal([['a'], ['b'], ['a']]);

    // A change announced while a load is in flight: what it read is served but not kept.
    feed.change('key_b');
    await memory.getMany(['b'], async (missing) => {
      feed.change('key_other');
      return loadMissing(missing);
    });
    await memory.getMany(['b'], loadMissing);
    expect(loads).to.deep.equal([['a'], ['b'], ['a'], ['b'], ['b']]);
  });
});
