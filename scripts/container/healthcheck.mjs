// The image's HEALTHCHECK: GET /__admin/health on this container's port (SHIPMOCK_PORT), over
// HTTPS when SHIPMOCK_TLS or SHIPMOCK_CERT says so. Slim images have no curl. Exit 0 healthy, 1 not.
import { request as http } from 'node:http';
import { request as https } from 'node:https';

const tls = /^(true|1|yes|on)$/i.test(process.env.SHIPMOCK_TLS ?? '') || Boolean(process.env.SHIPMOCK_CERT);
const port = Number(process.env.SHIPMOCK_PORT || 4010);
const req = (tls ? https : http)({ host: '127.0.0.1', port, path: '/__admin/health', timeout: 2500, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', (error) => {
  process.stderr.write(`shipmock health check: ${error.message}\n`);
  process.exit(1);
});
req.end();
