/**
 * Pix BR Code and boleto codes, as a real acquirer returns them. Your acquirer's API gives you these: delete this
 * file when you replace partner-acquirer.ts. Kept so the template's Pix and boleto answers validate like real ones.
 */

function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const emv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** EMV BR Code (copy and paste) for a static-key Pix charge of `amount` cents. */
export function pixBrCode(pixKey: string, amount: number, txid: string): string {
  const body =
    emv('00', '01') +
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', pixKey)) +
    emv('52', '0000') +
    emv('53', '986') +
    emv('54', (amount / 100).toFixed(2)) +
    emv('58', 'BR') +
    emv('59', 'TEMPLATE MERCHANT') +
    emv('60', 'SAO PAULO') +
    emv('62', emv('05', txid.replace(/[^A-Za-z0-9]/g, '').slice(0, 25))) +
    '6304';
  return body + crc16(body);
}

function mod10(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((d, i) => {
    const product = Number(d) * (i % 2 === 0 ? 2 : 1);
    sum += Math.floor(product / 10) + (product % 10);
  });
  return (10 - (sum % 10)) % 10;
}

function mod11(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((d, i) => (sum += Number(d) * (2 + (i % 8))));
  const digit = 11 - (sum % 11);
  return digit === 0 || digit === 10 || digit === 11 ? 1 : digit;
}

/** FEBRABAN due factor: days since 1997-10-07, restarting at 1000 on 2025-02-22. */
function dueFactor(dueDate: string): string {
  const days = Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse('1997-10-07T00:00:00Z')) / 86_400_000);
  return String(days >= 10_000 ? 1_000 + ((days - 10_000) % 9_000) : days).padStart(4, '0');
}

/** 44-digit barcode and 47-digit digitable line of a bank boleto (bank 000, currency 9). */
export function boletoCodes(amount: number, dueDate: string, ourNumber: string): { barcode: string; digitableLine: string } {
  const free = ourNumber.replace(/\D/g, '').padStart(25, '0').slice(-25);
  const tail = dueFactor(dueDate) + String(amount).padStart(10, '0') + free;
  const dv = mod11('0009' + tail);
  const barcode = `0009${dv}${tail}`;
  const f1 = '0009' + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  const digitableLine = `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${dv}${barcode.slice(5, 19)}`;
  return { barcode, digitableLine };
}
