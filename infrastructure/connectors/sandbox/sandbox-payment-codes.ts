/**
 * Bank artefacts the sandbox issues so Pix and boleto screens look and validate like the real ones:
 * an EMV BR Code with a valid CRC16 and a boleto with valid check digits.
 */

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as the BR Code standard requires, 4 uppercase hex digits. */
export function crc16Ccitt(payload: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(payload, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function emv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

function ascii(value: string, max: number): string {
  return value
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, max) || 'NA';
}

export function pixBrCode(input: { pixKey: string; amount: number; merchantName: string; city: string; txid: string }): string {
  const body =
    emv('00', '01') +
    emv('01', '12') +
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', input.pixKey)) +
    emv('52', '0000') +
    emv('53', '986') +
    emv('54', (input.amount / 100).toFixed(2)) +
    emv('58', 'BR') +
    emv('59', ascii(input.merchantName, 25)) +
    emv('60', ascii(input.city, 15)) +
    emv('62', emv('05', input.txid.replace(/[^A-Za-z0-9]/g, '').slice(0, 25) || '***')) +
    '6304';
  return body + crc16Ccitt(body);
}

function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? Math.floor(product / 10) + (product % 10) : product;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

function mod11Barcode(digits43: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits43.length - 1; i >= 0; i--) {
    sum += Number(digits43[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Due-date factor: days since 1997-10-07, restarting at 1000 on 2025-02-22 (FEBRABAN). */
export function boletoDueFactor(dueDate: string): string {
  const days = Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse('1997-10-07T00:00:00Z')) / 86_400_000);
  const factor = days >= 10_000 ? 1_000 + ((days - 10_000) % 9_000) : days;
  return String(factor).padStart(4, '0');
}

/** Barcode (44 digits) and digitable line (47 digits) for bank 000 (sandbox), currency 9 (BRL). */
export function boletoCodes(input: { amount: number; dueDate: string; freeField: string }): { barcode: string; digitableLine: string } {
  const bank = '000';
  const currency = '9';
  const free = input.freeField.replace(/\D/g, '').padStart(25, '0').slice(-25);
  const factor = boletoDueFactor(input.dueDate);
  const value = String(input.amount).padStart(10, '0').slice(-10);
  const withoutDv = bank + currency + factor + value + free;
  const dv = mod11Barcode(withoutDv);
  const barcode = bank + currency + String(dv) + factor + value + free;
  const field1 = bank + currency + free.slice(0, 5);
  const field2 = free.slice(5, 15);
  const field3 = free.slice(15, 25);
  const digitableLine =
    field1 + mod10(field1) + field2 + mod10(field2) + field3 + mod10(field3) + String(dv) + factor + value;
  return { barcode, digitableLine };
}
