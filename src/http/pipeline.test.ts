import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { pipeline } from './pipeline.js';
import type { Step } from './types.js';

const req = {} as IncomingMessage;
const res = {} as ServerResponse;

/** Runs a pipeline and resolves with what it handed to `done`: 'done' or the error. */
function run(steps: Step[]): Promise<unknown> {
  return new Promise((resolve) => pipeline(steps)(req, res, (error) => resolve(error ?? 'done')));
}

describe('pipeline', () => {
  it('runs the steps in order, each after the previous one called next', async () => {
    const order: string[] = [];
    const step = (name: string): Step => (_req, _res, next) => {
      order.push(name);
      next();
    };
    expect(await run([step('a'), step('b'), step('c')])).toBe('done');
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('waits for an async step and goes on when it calls next', async () => {
    const order: string[] = [];
    const slow: Step = async (_req, _res, next) => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push('slow');
      next();
    };
    expect(await run([slow, (_q, _s, next) => (order.push('after'), next())])).toBe('done');
    expect(order).toEqual(['slow', 'after']);
  });

  it('stops at a step that answers without calling next', async () => {
    let reached = false;
    const answered = pipeline([() => undefined, () => void (reached = true)]);
    let finished = false;
    answered(req, res, () => (finished = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reached).toBe(false);
    expect(finished).toBe(false);
  });

  it('hands a thrown error, a rejected promise and next(error) to done, skipping the rest', async () => {
    const boom = new Error('boom');
    const never: Step = () => {
      throw new Error('must not run');
    };
    expect(await run([() => { throw boom; }, never])).toBe(boom);
    expect(await run([async () => { throw boom; }, never])).toBe(boom);
    expect(await run([(_q, _s, next) => next(boom), never])).toBe(boom);
  });

  it('treats next(null) and next(undefined) as going on', async () => {
    let last = false;
    expect(await run([(_q, _s, next) => next(null), (_q, _s, next) => next(undefined), (_q, _s, next) => ((last = true), next())])).toBe('done');
    expect(last).toBe(true);
  });

  it('calls done once with nothing when every step went on (no step answered)', async () => {
    expect(await run([])).toBe('done');
  });
});
