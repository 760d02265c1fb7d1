import nodemailer, { type Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from '../../domain/ports/mailer';

/**
 * E-mail through SMTP (`SMTP_URL`, e.g. smtp://user:pass@host:587 or smtps://...). Disabled when no URL is
 * configured or AUTH_EMAIL_ENABLED is false; then `send` does nothing.
 */
export class SmtpMailer implements Mailer {
  readonly enabled: boolean;
  private readonly transporter: Transporter | null;

  constructor(smtpUrl: string | null, enabled: boolean, private readonly from = 'Payments <no-reply@payments.local>') {
    this.enabled = Boolean(smtpUrl) && enabled;
    this.transporter = this.enabled ? nodemailer.createTransport(smtpUrl!) : null;
  }

  async send(message: MailMessage): Promise<void> {
    if (!this.transporter) return;
    await this.transporter.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
  }

  close(): void {
    this.transporter?.close();
  }
}
