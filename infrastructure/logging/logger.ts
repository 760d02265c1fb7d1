/**
 * JSON logs (pino). Secrets are redacted by path wherever they appear in a logged object, and request
 * logs are children carrying the request id, so every line of one request can be found together.
 */
import pino, { Logger } from 'pino';

export type { Logger } from 'pino';

/** Fields that must never reach a log line, at any depth we log objects. */
const REDACTED_PATHS = [
  'authorization', 'Authorization', '*.authorization', '*.Authorization',
  'headers.authorization', 'req.headers.authorization', 'req.headers["service-client-secret"]',
  'secret', '*.secret', 'apiKey', '*.apiKey', 'password', '*.password', 'newPassword', '*.newPassword',
  'currentPassword', '*.currentPassword', 'credentials', '*.credentials', 'clientSecret', '*.clientSecret',
  'refreshToken', '*.refreshToken', 'accessToken', '*.accessToken', 'mfaCode', '*.mfaCode',
  'recoveryCode', '*.recoveryCode', 'manualKey', '*.manualKey', 'totpSecret', '*.totpSecret',
  'resetToken', '*.resetToken', 'token', '*.token', 'cvv', '*.cvv', 'number', 'card.number',
];

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'payment-orchestration' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
