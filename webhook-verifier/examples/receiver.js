// A webhook receiver for trying deliveries locally (README, Quickstart): verifies each delivery with the verifier
// package and prints it. Plain Node (no TypeScript runner), after `make build` has built webhook-verifier/dist.
//   WEBHOOK_SECRET=whsec_... node webhook-verifier/examples/receiver.js     # listens on http://localhost:3000 (PORT)
'use strict';
const http = require('node:http');
const { verifyWebhook, WebhookVerificationError } = require('..');

const secret = process.env.WEBHOOK_SECRET;
if (!secret || !secret.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the whsec_... secret of your endpoint (or the one `npm run cli -- listen` prints).');
  process.exit(2);
}
const port = Number(process.env.PORT || 3000);
const seen = new Set(); // deliveries are at least once: act on each event id once (use your database in production)

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = verifyWebhook({ rawBody: Buffer.concat(chunks), signatureHeader: req.headers['service-signature'], secret });
      console.log(`verified ${event.type} ${event.id}${seen.has(event.id) ? ' (already seen)' : ''}`);
      seen.add(event.id);
      res.writeHead(204).end();
    } catch (error) {
      const code = error instanceof WebhookVerificationError ? error.code : 'error';
      console.log(`refused ${code}`);
      res.writeHead(400).end(code);
    }
  });
});
server.listen(port, 'localhost', () => console.log(`Receiving webhooks on http://localhost:${port}/webhooks (Ctrl-C to stop)`));
process.on('SIGINT', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
