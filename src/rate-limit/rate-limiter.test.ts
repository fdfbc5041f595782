import { describe, expect, it } from 'vitest';
import { createClock } from '../clock/clock.js';
import { createLoginLockout } from './login-lockout.js';
import { createRateLimiter, UNLIMITED } from './rate-limiter.js';
import { createRequestLimits } from './request-limits.js';
import { windowsInValues } from './windows-in-values.js';

const manualClock = () => createClock({ mode: 'manual' });

describe('createRateLimiter', () => {
  it('counts a fixed window and reports remaining, reset and limited', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ clock, limit: 2, windowMs: 10_000 });
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, limited: false });
    clock.advance(2_500);
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 8, limited: false });
    expect(limiter.consume('a')).toMatchObject({ remaining: 0, limited: true });
    clock.advance(7_500);
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, limited: false });
  });

  it('off (the UNLIMITED limit) counts nothing and keeps no window, whether set at start or by configure', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ clock, limit: UNLIMITED, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) expect(limiter.consume('a')).toEqual({ limit: UNLIMITED, remaining: UNLIMITED, resetSeconds: 60, limited: false });
    expect(limiter.size).toBe(0);
    const limited = createRateLimiter({ clock, limit: 1, windowMs: 60_000 });
    limited.consume('a');
    limited.configure({ limit: UNLIMITED, windowMs: 60_000 });
    expect(limited.consume('a')).toMatchObject({ remaining: UNLIMITED, limited: false });
    expect(limited.size).toBe(0);
  });

  it('peek stores nothing for a key it has not seen', () => {
    const limiter = createRateLimiter({ clock: manualClock(), limit: 5, windowMs: 1_000 });
    expect(limiter.peek('never')).toEqual({ limit: 5, remaining: 5, resetSeconds: 1, limited: false });
    expect(limiter.size).toBe(0);
  });

  it('drops windows that ended with no new hit, on the virtual clock, at the next use', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ clock, limit: 5, windowMs: 60_000 });
    for (let i = 0; i < 1_000; i++) limiter.consume(`idle-${i}`);
    clock.advance(30_000);
    limiter.consume('late');
    expect(limiter.size).toBe(1_001);
    clock.advance(30_000);
    limiter.consume('fresh');
    // The 1,000 idle windows ended at 60 s; 'late' still runs until 90 s.
    expect(limiter.size).toBe(2);
    clock.advance(30_000);
    limiter.sweep();
    expect(limiter.size).toBe(1);
    expect(limiter.peek('late').remaining).toBe(5);
  });

  it('a renewed window moves to the back, so the sweep still stops at the first running one', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ clock, limit: 5, windowMs: 10_000 });
    limiter.consume('a');
    clock.advance(5_000);
    limiter.consume('b');
    clock.advance(5_000);
    limiter.consume('a'); // a's window ended at 10 s: a new one starts now and goes last
    clock.advance(5_000);
    limiter.sweep(); // b ended at 15 s
    expect(limiter.size).toBe(1);
    expect(limiter.peek('a').remaining).toBe(4);
  });

  it('holds at most maxKeys windows under a flood of 50,000 distinct keys, evicting the oldest', () => {
    const limiter = createRateLimiter({ clock: manualClock(), limit: 5, windowMs: 60_000, maxKeys: 10_000 });
    limiter.consume('victim');
    for (let i = 0; i < 50_000; i++) limiter.consume(`garbage-${i}`);
    expect(limiter.size).toBe(10_000);
    expect(limiter.peek('garbage-49999').remaining).toBe(4);
    // Evicted: at worst a fresh window for an old key, never a wrong count.
    expect(limiter.peek('victim').remaining).toBe(5);
  });

  it('clock set backwards starts fresh windows instead of reporting negative resets', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ clock, limit: 3, windowMs: 10_000 });
    limiter.consume('a');
    limiter.consume('a');
    clock.set(clock.now() - 60_000);
    expect(limiter.consume('a')).toEqual({ limit: 3, remaining: 2, resetSeconds: 10, limited: false });
    expect(limiter.size).toBe(1);
  });
});

describe('createRequestLimits', () => {
  it('counts ip: keys in the address window (a tenth of the limit by default), the rest per principal', () => {
    const limits = createRequestLimits({ clock: manualClock(), principal: { limit: 6000, windowMs: 60_000 } });
    expect(limits.consume('account:a').limit).toBe(6000);
    expect(limits.consume('ip:203.0.113.7').limit).toBe(600);
    expect([limits.principals.size, limits.addresses.size, limits.size]).toEqual([1, 1, 2]);
    limits.configure({ limit: 5, windowMs: 1_000 });
    expect(limits.consume('ip:203.0.113.7')).toMatchObject({ limit: 1, remaining: 0 });
  });

  it('keeps an address window set on its own through configure', () => {
    const limits = createRequestLimits({ clock: manualClock(), principal: { limit: 6000, windowMs: 60_000 }, address: { limit: 42, windowMs: 30_000 } });
    limits.configure({ limit: 10, windowMs: 1_000 });
    expect(limits.consume('ip:x')).toEqual({ limit: 42, remaining: 41, resetSeconds: 30, limited: false });
  });

  it('bounds both maps separately and sweeps the idle one while only the other is used', () => {
    const clock = manualClock();
    const limits = createRequestLimits({ clock, principal: { limit: 10, windowMs: 60_000 }, maxPrincipalKeys: 100, maxAddressKeys: 10 });
    for (let i = 0; i < 1_000; i++) {
      limits.consume(`ip:10.0.${i >> 8}.${i & 255}`);
      limits.consume(`account:${i}`);
    }
    expect([limits.principals.size, limits.addresses.size]).toEqual([100, 10]);
    clock.advance(60_000);
    limits.consume('account:new');
    expect([limits.principals.size, limits.addresses.size]).toEqual([1, 0]);
  });

  it('reset clears windows and login locks', () => {
    const limits = createRequestLimits({ clock: manualClock(), principal: { limit: 10, windowMs: 60_000 }, lockout: { failures: 1, windowMs: 60_000 } });
    limits.consume('account:a');
    limits.lockout.failed('client', '10.0.0.1');
    expect(limits.lockout.locked('client', '10.0.0.1')).toBeDefined();
    limits.reset();
    expect(limits.size).toBe(0);
    expect(limits.lockout.locked('client', '10.0.0.1')).toBeUndefined();
  });
});

describe('createLoginLockout', () => {
  it('locks a (client id, address) pair after N failures until its window ends; other pairs are free', () => {
    const clock = manualClock();
    const lockout = createLoginLockout({ clock, failures: 3, windowMs: 900_000 });
    for (let i = 0; i < 2; i++) lockout.failed('client', '10.0.0.1');
    expect(lockout.locked('client', '10.0.0.1')).toBeUndefined();
    lockout.failed('client', '10.0.0.1');
    expect(lockout.locked('client', '10.0.0.1')).toEqual({ limit: 3, remaining: 0, resetSeconds: 900, limited: true });
    expect(lockout.locked('client', '10.0.0.2')).toBeUndefined();
    expect(lockout.locked('other', '10.0.0.1')).toBeUndefined();
    // The real client's success elsewhere frees nobody.
    lockout.succeeded('client', '10.0.0.2');
    expect(lockout.locked('client', '10.0.0.1')).toBeDefined();
    clock.advance(900_000);
    expect(lockout.locked('client', '10.0.0.1')).toBeUndefined();
  });

  it('a success from the same pair clears its failures', () => {
    const lockout = createLoginLockout({ clock: manualClock(), failures: 2, windowMs: 60_000 });
    lockout.failed('client', 'a');
    lockout.succeeded('client', 'a');
    lockout.failed('client', 'a');
    expect(lockout.locked('client', 'a')).toBeUndefined();
  });

  it('keeps pairs apart whatever a client id contains', () => {
    const lockout = createLoginLockout({ clock: manualClock(), failures: 1, windowMs: 60_000 });
    lockout.failed('a","b', 'c');
    expect(lockout.locked('a', 'b","c')).toBeUndefined();
    expect(lockout.locked('a","b', 'c')).toBeDefined();
  });
});

describe('rate-limit windows kept in a shared store\'s values', () => {
  it('counts in windows another limiter over the same values sees, one entry per window, and keeps other entries alone', () => {
    const clock = createClock({ mode: 'manual' });
    const values = new Map<string, unknown>([['process:1:heartbeat', 123]]);
    // Swept and counted on every use here (the store's default is once a second).
    const windows = () => ({ principals: windowsInValues(() => values, 'rate:p:', 0), addresses: windowsInValues(() => values, 'rate:a:', 0), lockout: windowsInValues(() => values, 'rate:l:', 0) });
    const one = createRequestLimits({ clock, principal: { limit: 3, windowMs: 60_000 }, windows: windows() });
    const two = createRequestLimits({ clock, principal: { limit: 3, windowMs: 60_000 }, windows: windows() });
    one.consume('account:a');
    two.consume('account:a');
    one.consume('ip:203.0.113.7');
    expect(two.consume('account:a').remaining).toBe(0);
    expect(one.consume('account:a').limited).toBe(true);
    expect(two.peek('ip:203.0.113.7').remaining).toBe(two.addresses.config.limit - 1);
    // Wrong secrets count in one lockout window too.
    for (let i = 0; i < 10; i++) (i % 2 ? one : two).lockout.failed('client', '203.0.113.7');
    expect(one.lockout.locked('client', '203.0.113.7')).toBeDefined();
    two.lockout.succeeded('client', '203.0.113.7');
    expect([...values.keys()].sort()).toEqual(['process:1:heartbeat', 'rate:a:ip:203.0.113.7', 'rate:p:account:a']);
    expect(one.size).toBe(2);
    clock.advance(61_000);
    one.sweep();
    expect([...values.keys()]).toEqual(['process:1:heartbeat']);
    values.set('rate:p:junk', 'not a window');
    expect(two.peek('junk').remaining).toBe(3);
    two.reset();
    expect([...values.keys()]).toEqual(['process:1:heartbeat']);
  });
});
