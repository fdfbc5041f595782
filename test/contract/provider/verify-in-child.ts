// Child-process entry of verifyProviderCaptured (support.ts), run with `node --import tsx`:
// receives the verification options over IPC, runs verifyProvider from the sources against
// shipmock's control API, and sends the report back. Whatever the Pact verifier prints
// (native pact-core writes its report straight to fd 1) goes to the parent's buffer.
import { verifyProvider } from '../../../src/verify/run-verification.js';
import { shipmockControl } from '../../../src/verify/targets.js';
import type { CapturedVerificationRequest, CapturedVerificationReply } from './support.js';

const reply = (message: CapturedVerificationReply) => process.send!(message, () => process.exit(0));

process.once('message', (message) => {
  const { baseUrl, access, shipmockUrl, pacts } = message as CapturedVerificationRequest;
  verifyProvider({ baseUrl, access, control: shipmockControl(shipmockUrl), pacts }).then(
    (report) => reply({ report }),
    (error: unknown) => reply({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
