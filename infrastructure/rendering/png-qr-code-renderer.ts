import QRCode from 'qrcode';
import type { QrCodeRenderer } from '../../domain/ports/qr-code-renderer';

/** QR codes by the `qrcode` package: medium error correction, a one-module margin, 240 px, sized for a phone camera. */
export class PngQrCodeRenderer implements QrCodeRenderer {
  pngDataUrl(text: string): Promise<string> {
    return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 1, width: 240 });
  }
}
