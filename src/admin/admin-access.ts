import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../errors/problem.js';

export const ADMIN_KEY_HEADER = 'x-admin-key';

/** 127.0.0.0/8 and ::1, also in their IPv4-mapped IPv6 form. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || plain.startsWith('127.') || plain === 'localhost';
}

/** Whether a bind address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return isLoopback(host.replace(/^\[|\]$/g, ''));
}

function sameKey(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time says nothing about the key.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Who may use the control plane: with an admin key, whoever sends it in X-Admin-Key; without
 * one, only callers on this machine (loopback), so a mock bound to a LAN address cannot be reset
 * or read by its neighbours. Health stays open for container health checks.
 */
export function adminAccess(options: { adminKey?: string }) {
  return function adminAccessStep(req: Request, _res: Response, next: NextFunction) {
    if (req.path === '/health') return next();
    if (options.adminKey) {
      const given = req.headers[ADMIN_KEY_HEADER];
      if (typeof given === 'string' && sameKey(given, options.adminKey)) return next();
      throw new ProblemError('unauthorized', { detail: given === undefined ? 'The control plane needs the X-Admin-Key header' : 'The X-Admin-Key is wrong' });
    }
    if (isLoopback(req.socket.remoteAddress)) return next();
    throw new ProblemError('forbidden', { detail: 'The control plane answers only loopback callers unless shipmock is started with --admin-key' });
  };
}
