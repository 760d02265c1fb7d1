/**
 * The sandbox bank's printable boleto (the `pdfUrl` of a boleto it issues): a print-ready HTML page with the
 * digitable line, due date, amount, payer, instructions and the barcode drawn as Interleaved 2 of 5 (ITF), the
 * symbology FEBRABAN prescribes for the 44 digits, so the page can be printed and read by a bank's scanner.
 */

/** ITF: each digit is five elements, two of them wide (n narrow, w wide). */
const ITF_DIGITS = ['nnwwn', 'wnnnw', 'nwnnw', 'wwnnn', 'nnwnw', 'wnwnn', 'nwwnn', 'nnnww', 'wnnwn', 'nwnwn'];
const NARROW = 1;
const WIDE = 3;

export interface PrintableBoleto {
  readonly digitableLine: string;
  readonly barcode: string;
  readonly dueDate: string;
  readonly amount: number;
  readonly payerName: string;
  readonly instructions: string;
}

/**
 * The barcode as bar/space widths in modules, starting with a bar: start (narrow bar, space, bar, space), each pair of
 * digits interleaved (the first digit's pattern on the bars, the second's on the spaces), stop (wide bar, space, bar).
 */
export function itfWidths(digits: string): number[] {
  if (!/^\d*$/.test(digits) || digits.length % 2 !== 0) throw new Error('ITF encodes an even number of digits');
  const widths = [NARROW, NARROW, NARROW, NARROW];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = ITF_DIGITS[Number(digits[i])]!;
    const spaces = ITF_DIGITS[Number(digits[i + 1])]!;
    for (let k = 0; k < 5; k++) widths.push(bars[k] === 'w' ? WIDE : NARROW, spaces[k] === 'w' ? WIDE : NARROW);
  }
  widths.push(WIDE, NARROW, NARROW);
  return widths;
}

/** The ITF barcode as an SVG of black bars (one rect per bar), `module` pixels per narrow element. */
export function itfSvg(digits: string, module = 1, height = 50): string {
  let x = 10 * module; // quiet zone
  const rects: string[] = [];
  itfWidths(digits).forEach((width, index) => {
    if (index % 2 === 0) rects.push(`<rect x="${x}" y="0" width="${width * module}" height="${height}"/>`);
    x += width * module;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${x + 10 * module}" height="${height}" viewBox="0 0 ${x + 10 * module} ${height}" role="img" aria-label="Código de barras">${rects.join('')}</svg>`;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The digitable line as printed: 00000.00000 00000.000000 00000.000000 0 00000000000000. */
export function formatDigitableLine(line: string): string {
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line[32]} ${line.slice(33)}`;
}

export function printableBoletoHtml(boleto: PrintableBoleto): string {
  const amount = (boleto.amount / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });
  const [year, month, day] = boleto.dueDate.split('-');
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Boleto ${escape(formatDigitableLine(boleto.digitableLine))}</title>
<style>
body{font-family:Arial,Helvetica,sans-serif;margin:24px;color:#000}
table{border-collapse:collapse;width:100%;max-width:720px}td{border:1px solid #000;padding:4px 6px;font-size:12px;vertical-align:top}
.label{font-size:9px;display:block}.line{font-size:16px;font-weight:bold;text-align:right}
.barcode{margin-top:12px}@media print{body{margin:0}.noprint{display:none}}
</style></head>
<body>
<table>
<tr><td colspan="3"><strong>SANDBOX BANK | 000-9</strong></td><td class="line">${escape(formatDigitableLine(boleto.digitableLine))}</td></tr>
<tr><td colspan="3"><span class="label">Local de pagamento</span>Pagável em qualquer banco até o vencimento (ambiente de testes)</td><td><span class="label">Vencimento</span><strong>${escape(`${day}/${month}/${year}`)}</strong></td></tr>
<tr><td colspan="3"><span class="label">Instruções</span>${escape(boleto.instructions)}</td><td><span class="label">Valor do documento</span><strong>${escape(amount)}</strong></td></tr>
<tr><td colspan="4"><span class="label">Pagador</span>${escape(boleto.payerName)}</td></tr>
</table>
<div class="barcode">${itfSvg(boleto.barcode)}</div>
<p class="noprint"><button onclick="window.print()">Imprimir</button></p>
</body></html>`;
}
