export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * Outgoing e-mail (password reset, security alerts). `enabled` is false when no provider is configured or
 * AUTH_EMAIL_ENABLED is false; `send` then does nothing. `send` rejects when the provider refuses.
 */
export interface Mailer {
  readonly enabled: boolean;
  send(message: MailMessage): Promise<void>;
}
