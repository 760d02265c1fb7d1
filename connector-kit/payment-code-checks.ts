/**
 * Independent checks of the bank artefacts an adapter issues: the Pix BR Code (EMV TLV with a CRC16) and the
 * bank boleto's barcode and digitable line (FEBRABAN check digits). Written from the standards, not from the
 * sandbox's generator, so a bug shared by both cannot pass unseen. Each function returns the problems found.
 */

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over the UTF-8 bytes, as the BR Code standard requires. */
function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Top-level EMV fields (two-digit id, two-digit length, value), or a description of where the text breaks. */
function emvFields(text: string): Map<string, string> | string {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const id = text.slice(at, at + 2);
    const length = Number(text.slice(at + 2, at + 4));
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(text.slice(at + 2, at + 4)) || at + 4 + length > text.length) {
      return `malformed EMV field at offset ${at}`;
    }
    fields.set(id, text.slice(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

/** Problems of a Pix copy-and-paste BR Code for `amount` cents; [] when it is well formed. */
export function brCodeProblems(code: string, amount: number): string[] {
  const fields = emvFields(code);
  if (typeof fields === 'string') return [fields];
  const problems: string[] = [];
  if (fields.get('00') !== '01') problems.push('field 00 (payload format) must be 01');
  const account = emvFields(fields.get('26') ?? '');
  if (typeof account === 'string' || account.get('00')?.toLowerCase() !== 'br.gov.bcb.pix') {
    problems.push('field 26 must hold GUI br.gov.bcb.pix');
  }
  if (fields.get('53') !== '986') problems.push('field 53 (currency) must be 986 (BRL)');
  if (fields.get('54') !== (amount / 100).toFixed(2)) problems.push(`field 54 (amount) must be ${(amount / 100).toFixed(2)}, got ${fields.get('54')}`);
  if (fields.get('58') !== 'BR') problems.push('field 58 (country) must be BR');
  if (!code.slice(-8, -4).startsWith('6304')) problems.push('the code must end with field 63 (CRC16), 4 hex digits');
  else if (code.slice(-4) !== crc16CcittFalse(code.slice(0, -4))) problems.push(`CRC16 ${code.slice(-4)} does not match ${crc16CcittFalse(code.slice(0, -4))}`);
  return problems;
}

/** Modulo-10 check digit of a digitable-line field (weights 2,1 from the right, digits of products summed). */
function mod10(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((d, i) => {
    const product = Number(d) * (i % 2 === 0 ? 2 : 1);
    sum += Math.floor(product / 10) + (product % 10);
  });
  return (10 - (sum % 10)) % 10;
}

/** Modulo-11 general check digit of the barcode (weights 2..9 from the right; 0, 10 and 11 become 1). */
function mod11(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((d, i) => (sum += Number(d) * (2 + (i % 8))));
  const digit = 11 - (sum % 11);
  return digit === 0 || digit === 10 || digit === 11 ? 1 : digit;
}

/** Problems of a bank boleto's 44-digit barcode and 47-digit digitable line for `amount` cents. */
export function boletoProblems(barcode: string, digitableLine: string, amount: number): string[] {
  if (!/^\d{44}$/.test(barcode)) return ['the barcode must be 44 digits'];
  if (!/^\d{47}$/.test(digitableLine)) return ['the digitable line must be 47 digits'];
  const problems: string[] = [];
  if (Number(barcode[4]) !== mod11(barcode.slice(0, 4) + barcode.slice(5))) problems.push('the barcode general check digit (position 5) is wrong');
  if (barcode.slice(9, 19) !== String(amount).padStart(10, '0')) problems.push(`the barcode amount (positions 10-19) must be ${amount}`);
  const fields = [digitableLine.slice(0, 10), digitableLine.slice(10, 21), digitableLine.slice(21, 32)];
  fields.forEach((field, i) => {
    if (Number(field.at(-1)) !== mod10(field.slice(0, -1))) problems.push(`digitable line field ${i + 1} check digit is wrong`);
  });
  // The digitable line is the barcode reordered (FEBRABAN): it must name the same bank, amount and free field.
  const rebuilt =
    digitableLine.slice(0, 4) + digitableLine[32] + digitableLine.slice(33, 47) + digitableLine.slice(4, 9) + digitableLine.slice(10, 20) + digitableLine.slice(21, 31);
  if (rebuilt !== barcode) problems.push('the digitable line does not match the barcode');
  return problems;
}
