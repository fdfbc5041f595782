import { describe, expect, it } from 'vitest';
import { createDeliveryLog, type Delivery, type DeliveryStatus } from './delivery-log.js';

let seq = 0;
function delivery(channelId: string, status: DeliveryStatus = 'DELIVERED', topic = 'ADDRESS'): Delivery {
  seq++;
  return {
    id: `d${seq}`,
    seq,
    channelId,
    accountId: channelId.startsWith('b') ? 'acc-b' : 'acc-a',
    eventId: `e${seq}`,
    topic,
    type: 'CREATED',
    status,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    redeliveries: 0,
    attempts: [],
    event: { id: `e${seq}`, topic, type: 'CREATED', createdAt: '2026-01-01T00:00:00.000Z', payload: {} },
  };
}

describe('delivery log', () => {
  it('evicts the oldest finished delivery of a channel past the per-channel cap', () => {
    const log = createDeliveryLog({ capPerChannel: 3, capTotal: 100 });
    const ds = [delivery('a'), delivery('a'), delivery('a'), delivery('a')];
    ds.forEach((d) => log.add(d));
    expect(log.query({ channelId: 'a', limit: 10 }).items.map((d) => d.id)).toEqual([ds[3].id, ds[2].id, ds[1].id]);
    expect(log.get(ds[0].id)).toBeUndefined();
    expect(log.query({ limit: 10 }).evicted).toBe(1);
  });

  it('never evicts an unfinished delivery; it evicts a finished newer one instead, or none', () => {
    const log = createDeliveryLog({ capPerChannel: 2, capTotal: 100 });
    const pending = delivery('a', 'RETRYING');
    const done = delivery('a');
    const more = delivery('a', 'PENDING');
    [pending, done, more].forEach((d) => log.add(d));
    expect(log.get(pending.id)).toBe(pending);
    expect(log.get(done.id)).toBeUndefined();
    const stillPending = delivery('a', 'PENDING');
    log.add(stillPending);
    expect(log.size()).toBe(3);
    // once finished, the cap is enforced again (a delivered one; dead letters have their own cap)
    pending.status = 'DELIVERED';
    log.noteStatus(pending);
    log.enforceCaps('a');
    expect(log.size()).toBe(2);
    expect(log.get(pending.id)).toBeUndefined();
  });

  it('caps the total across channels, oldest finished first', () => {
    const log = createDeliveryLog({ capPerChannel: 100, capTotal: 3 });
    const ds = [delivery('a'), delivery('b'), delivery('a'), delivery('b')];
    ds.forEach((d) => log.add(d));
    expect(log.query({ limit: 10 }).items.map((d) => d.id)).toEqual([ds[3].id, ds[2].id, ds[1].id]);
  });

  it('filters, counts per status and pages newest first', () => {
    const log = createDeliveryLog({ capPerChannel: 100, capTotal: 100 });
    const ds = [delivery('a'), delivery('a', 'FAILED'), delivery('b'), delivery('a', 'DELIVERED', 'TRACKER'), delivery('a')];
    ds.forEach((d) => log.add(d));
    const first = log.query({ channelId: 'a', limit: 2 });
    expect(first.items.map((d) => d.id)).toEqual([ds[4].id, ds[3].id]);
    expect(first.counts).toMatchObject({ DELIVERED: 3, FAILED: 1 });
    const second = log.query({ channelId: 'a', limit: 2, cursor: first.nextCursor });
    expect(second.items.map((d) => d.id)).toEqual([ds[1].id, ds[0].id]);
    expect(second.nextCursor).toBeUndefined();
    expect(log.query({ status: 'FAILED', limit: 10 }).items).toEqual([ds[1]]);
    expect(log.query({ topic: 'TRACKER', limit: 10 }).items).toEqual([ds[3]]);
    expect(log.query({ accountId: 'acc-b', limit: 10 }).items).toEqual([ds[2]]);
    expect(log.query({ channelId: 'nope', limit: 10 }).items).toEqual([]);
  });

  it('keeps dead letters past the caps while evicting delivered ones, and counts them apart', () => {
    const log = createDeliveryLog({ capPerChannel: 3, capTotal: 5, deadLetterCap: 100 });
    const dead = Array.from({ length: 10 }, () => delivery('a', 'FAILED'));
    const done = Array.from({ length: 10 }, () => delivery('a'));
    [...dead, ...done].forEach((d) => log.add(d));
    for (const d of dead) expect(log.get(d.id)).toBe(d);
    expect(log.query({ channelId: 'a', status: 'DELIVERED', limit: 100 }).items.map((d) => d.id)).toEqual(done.slice(-3).reverse().map((d) => d.id));
    expect(log.query({ limit: 1 })).toMatchObject({ evicted: 7, deadLettersEvicted: 0, counts: { FAILED: 10, DELIVERED: 3 } });
  });

  it('drops the oldest dead letter past the dead-letter cap and reports it', () => {
    const dropped: string[] = [];
    const log = createDeliveryLog({ capPerChannel: 100, capTotal: 100, deadLetterCap: 2, onDeadLetterEvicted: (d) => dropped.push(d.id) });
    const dead = [delivery('a', 'FAILED'), delivery('b', 'FAILED'), delivery('a', 'FAILED')];
    dead.forEach((d) => log.add(d));
    expect(dropped).toEqual([dead[0].id]);
    expect(log.get(dead[0].id)).toBeUndefined();
    expect(log.query({ limit: 10 })).toMatchObject({ deadLettersEvicted: 1, evicted: 0, counts: { FAILED: 2 } });
  });

  it('a redelivered dead letter counts against the normal caps again; a purge drops one status only', () => {
    const log = createDeliveryLog({ capPerChannel: 100, capTotal: 100, deadLetterCap: 1 });
    const first = delivery('a', 'FAILED');
    log.add(first);
    first.status = 'PENDING';
    log.noteStatus(first);
    const second = delivery('a', 'FAILED');
    log.add(second);
    // the cap of 1 holds only `second` now: `first` is no dead letter any more, so both stay
    expect(log.get(first.id)).toBe(first);
    expect(log.deadLetters()).toBe(1);
    log.add(delivery('b', 'DELIVERED'));
    expect(log.purge({ status: 'FAILED', channelId: 'b' })).toBe(0);
    expect(log.purge({ status: 'FAILED' })).toBe(1);
    expect(log.get(second.id)).toBeUndefined();
    expect(log.size()).toBe(2);
    expect(log.deadLetters()).toBe(0);
  });

  it('drops deliveries without counting them as evicted', () => {
    const log = createDeliveryLog({ capPerChannel: 100, capTotal: 100 });
    [delivery('a'), delivery('b')].forEach((d) => log.add(d));
    log.drop((d) => d.accountId === 'acc-a');
    expect(log.query({ limit: 10 }).items.map((d) => d.channelId)).toEqual(['b']);
    expect(log.query({ limit: 10 }).evicted).toBe(0);
  });
});
