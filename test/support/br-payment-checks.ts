/**
 * Checks of Brazilian payment codes written for the tests from the public standards
 * (../shared/reference/br-payment-vectors.md), independently of the service's own code: a table-driven CRC-16,
 * and the FEBRABAN boleto check digits and due-date factor. test/unit/support/br-payment-checks.test.ts pins them
 * to the published check values.
 */

/** CRC-16/CCITT-FALSE through a 256-entry table (the service computes it bit by bit). */
const CRC_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let value = byte << 8;
  for (let i = 0; i < 8; i++) value = (value & 0x8000 ? (value << 1) ^ 0x1021 : value << 1) & 0xffff;
  return value;
});

export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** A BR Code ends with tag 63, length 04 and the CRC of everything before the CRC's four characters. */
export function brCodeCrcIsValid(code: string): boolean {
  if (!/6304[0-9A-F]{4}$/.test(code)) return false;
  return crc16CcittFalse(code.slice(0, -4)) === code.slice(-4);
}

/** The barcode's general check digit (position 5): weights 2..9 from the right over the other 43 digits. */
export function boletoBarcodeIsValid(barcode: string): boolean {
  if (!/^\d{44}$/.test(barcode)) return false;
  const others = barcode.slice(0, 4) + barcode.slice(5);
  const weights = [2, 3, 4, 5, 6, 7, 8, 9];
  const sum = [...others].reverse().reduce((total, digit, i) => total + Number(digit) * weights[i % 8]!, 0);
  const r = 11 - (sum % 11);
  return Number(barcode[4]) === (r === 0 || r === 10 || r === 11 ? 1 : r);
}

function mod10(digits: string): number {
  const sum = [...digits].reverse().reduce((total, digit, i) => {
    const product = Number(digit) * (i % 2 === 0 ? 2 : 1);
    return total + Math.floor(product / 10) + (product % 10);
  }, 0);
  return (10 - (sum % 10)) % 10;
}

/**
 * The digitable line: fields 1-3 (free field split 5/10/10 after bank and currency) each with a mod-10 digit, then
 * the barcode's general digit, then factor and amount; it must say what the barcode says.
 */
export function digitableLineIsValid(line: string, barcode: string): boolean {
  if (!/^\d{47}$/.test(line)) return false;
  const fields = [line.slice(0, 10), line.slice(10, 21), line.slice(21, 32)];
  if (!fields.every((field) => mod10(field.slice(0, -1)) === Number(field.slice(-1)))) return false;
  const rebuilt = line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
  return rebuilt === barcode;
}

/**
 * The due date of a factor: days after 1997-10-07, the count restarting at 1000 on 2025-02-22 (so each factor stands
 * for dates 9000 days apart): the one nearest `today`.
 */
export function dueDateOfFactor(factor: number, today: Date): string {
  const day = 86_400_000;
  const base = Date.UTC(1997, 9, 7);
  const candidates = [0, 1, 2, 3].map((cycle) => base + (factor + cycle * 9000) * day);
  const nearest = candidates.reduce((best, c) => (Math.abs(c - today.getTime()) < Math.abs(best - today.getTime()) ? c : best));
  return new Date(nearest).toISOString().slice(0, 10);
}

/**
 * Reads an Interleaved 2 of 5 barcode drawn as SVG rects (black bars on white): widths of bars and the gaps between
 * them, classified narrow or wide by the narrowest, then decoded pair by pair after the start pattern (nnnn).
 */
export function decodeItfSvg(svg: string): string {
  const rects = [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => ({ x: Number(m[1]), width: Number(m[2]) }));
  const elements: number[] = [];
  rects.forEach((rect, i) => {
    elements.push(rect.width);
    const next = rects[i + 1];
    if (next) elements.push(next.x - (rect.x + rect.width));
  });
  const narrow = Math.min(...elements);
  const wide = elements.map((w) => w > narrow * 1.5);
  const patterns: Record<string, string> = { nnwwn: '0', wnnnw: '1', nwnnw: '2', wwnnn: '3', nnwnw: '4', wnwnn: '5', nwwnn: '6', nnnww: '7', wnnwn: '8', nwnwn: '9' };
  const body = wide.slice(4, wide.length - 3);
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    const group = body.slice(i, i + 10);
    const bars = group.filter((_, k) => k % 2 === 0).map((w) => (w ? 'w' : 'n')).join('');
    const spaces = group.filter((_, k) => k % 2 === 1).map((w) => (w ? 'w' : 'n')).join('');
    digits += (patterns[bars] ?? '?') + (patterns[spaces] ?? '?');
  }
  return digits;
}
