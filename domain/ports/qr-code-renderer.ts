/**
 * Draws text as a QR code image. Rendered by this server, never by a third-party service: what the code carries
 * (an authenticator's TOTP secret) must not leave the server except to the user.
 */
export interface QrCodeRenderer {
  /** The image as a `data:image/png;base64,...` URI, ready for an `<img src>`. */
  pngDataUrl(text: string): Promise<string>;
}
