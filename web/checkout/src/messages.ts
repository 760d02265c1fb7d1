/**
 * Every text the buyer reads, in the market's language (pt-BR, the default) and in English for browsers that ask
 * for it. The decline phrase itself comes from the service (decline.consumerMessages), in both languages.
 */
import type { CardProblem } from './card-checks';

export type Locale = 'pt-BR' | 'en';

/** pt-BR unless the browser's first language is English (a merchant may force one with `locale`). */
export function chooseLocale(languages: readonly string[], forced?: string): Locale {
  if (forced === 'en' || forced === 'pt-BR') return forced;
  return (languages[0] ?? '').toLowerCase().startsWith('en') ? 'en' : 'pt-BR';
}

export interface Messages {
  readonly title: string;
  readonly loading: string;
  readonly payTo: (merchant: string) => string;
  readonly amount: string;
  readonly cardNumber: string;
  readonly brandDetected: (brand: string) => string;
  readonly expiry: string;
  readonly expiryHint: string;
  readonly cvv: string;
  readonly cvvHint: string;
  readonly holderName: string;
  readonly pay: (amount: string) => string;
  readonly paying: string;
  readonly fixFields: (count: number) => string;
  readonly problems: Record<CardProblem, string>;
  readonly declined: string;
  readonly attemptsLeft: (remaining: number) => string;
  readonly tryAnotherCard: string;
  readonly threeDsTitle: string;
  readonly threeDsSandbox: string;
  readonly threeDsSucceed: string;
  readonly threeDsFail: string;
  readonly threeDsWorking: string;
  readonly pixTitle: string;
  readonly pixInstructions: string;
  readonly pixQrAlt: string;
  readonly pixCode: string;
  readonly copy: string;
  readonly copied: string;
  readonly timeLeft: (time: string) => string;
  readonly pixExpired: string;
  readonly boletoTitle: string;
  readonly boletoInstructions: string;
  readonly boletoLine: string;
  readonly dueDate: (date: string) => string;
  readonly boletoPdf: string;
  readonly waitingPayment: string;
  readonly processing: string;
  readonly approved: string;
  readonly approvedDetail: (card: string) => string;
  readonly paid: string;
  readonly failed: string;
  readonly failedAttemptLimit: string;
  readonly canceled: string;
  readonly expired: string;
  readonly endNote: string;
  readonly invalidLink: string;
  readonly notConfigured: string;
  readonly tooManyRequests: (minutes: number) => string;
  readonly network: string;
  readonly unexpected: string;
  readonly retry: string;
}

const PT_BR: Messages = {
  title: 'Pagamento',
  loading: 'Carregando o pagamento…',
  payTo: (merchant) => `Pagamento para ${merchant}`,
  amount: 'Valor',
  cardNumber: 'Número do cartão',
  brandDetected: (brand) => `Bandeira: ${brand}`,
  expiry: 'Validade',
  expiryHint: 'MM/AA',
  cvv: 'Código de segurança (CVV)',
  cvvHint: '3 dígitos no verso (4 na frente, American Express)',
  holderName: 'Nome impresso no cartão',
  pay: (amount) => `Pagar ${amount}`,
  paying: 'Processando o pagamento…',
  fixFields: (count) => (count === 1 ? 'Corrija o campo destacado.' : `Corrija os ${count} campos destacados.`),
  problems: {
    required: 'Preencha este campo.',
    number_invalid: 'Número de cartão inválido. Confira os dígitos.',
    expiry_invalid: 'Informe a validade como MM/AA.',
    expiry_past: 'Este cartão está vencido.',
    cvv_invalid: 'Código de segurança inválido.',
    name_too_long: 'O nome pode ter no máximo 120 caracteres.',
  },
  declined: 'Pagamento recusado',
  attemptsLeft: (remaining) => (remaining === 1 ? 'Você tem mais 1 tentativa.' : `Você tem mais ${remaining} tentativas.`),
  tryAnotherCard: 'Tente outro cartão.',
  threeDsTitle: 'Autenticação do cartão (3-D Secure)',
  threeDsSandbox: 'Ambiente de testes: escolha o resultado da autenticação que o banco emissor daria.',
  threeDsSucceed: 'Autenticar com sucesso',
  threeDsFail: 'Falhar a autenticação',
  threeDsWorking: 'Enviando o resultado da autenticação…',
  pixTitle: 'Pague com Pix',
  pixInstructions: 'Abra o app do seu banco, escolha Pix e leia o QR code ou cole o código abaixo.',
  pixQrAlt: 'QR code do Pix',
  pixCode: 'Pix copia e cola',
  copy: 'Copiar código',
  copied: 'Código copiado.',
  timeLeft: (time) => `Tempo restante: ${time}`,
  pixExpired: 'O prazo para pagar este Pix terminou.',
  boletoTitle: 'Pague com boleto',
  boletoInstructions: 'Pague no app do seu banco com a linha digitável ou imprima o boleto.',
  boletoLine: 'Linha digitável',
  dueDate: (date) => `Vencimento: ${date}`,
  boletoPdf: 'Abrir o boleto para imprimir',
  waitingPayment: 'Aguardando o pagamento. Esta página se atualiza sozinha.',
  processing: 'Estamos confirmando o seu pagamento…',
  approved: 'Pagamento aprovado',
  approvedDetail: (card) => `Pago com ${card}.`,
  paid: 'Pagamento recebido',
  failed: 'Pagamento não aprovado',
  failedAttemptLimit: 'O limite de tentativas com cartão foi atingido.',
  canceled: 'Pagamento cancelado',
  expired: 'O prazo para pagar terminou.',
  endNote: 'Você já pode fechar esta página.',
  invalidLink: 'Este link de pagamento é inválido ou já não vale.',
  notConfigured: 'A loja ainda não pode receber pagamentos com cartão. Fale com a loja.',
  tooManyRequests: (minutes) => `Muitas tentativas. Tente novamente em ${minutes} min.`,
  network: 'Não foi possível conectar. Verifique a sua internet e tente novamente.',
  unexpected: 'Algo deu errado. Tente novamente.',
  retry: 'Tentar novamente',
};

const EN: Messages = {
  title: 'Payment',
  loading: 'Loading the payment…',
  payTo: (merchant) => `Payment to ${merchant}`,
  amount: 'Amount',
  cardNumber: 'Card number',
  brandDetected: (brand) => `Brand: ${brand}`,
  expiry: 'Expiry date',
  expiryHint: 'MM/YY',
  cvv: 'Security code (CVV)',
  cvvHint: '3 digits on the back (4 on the front, American Express)',
  holderName: 'Name on the card',
  pay: (amount) => `Pay ${amount}`,
  paying: 'Processing the payment…',
  fixFields: (count) => (count === 1 ? 'Correct the highlighted field.' : `Correct the ${count} highlighted fields.`),
  problems: {
    required: 'Fill in this field.',
    number_invalid: 'Invalid card number. Check the digits.',
    expiry_invalid: 'Enter the expiry date as MM/YY.',
    expiry_past: 'This card has expired.',
    cvv_invalid: 'Invalid security code.',
    name_too_long: 'The name may have at most 120 characters.',
  },
  declined: 'Payment declined',
  attemptsLeft: (remaining) => (remaining === 1 ? 'You have 1 attempt left.' : `You have ${remaining} attempts left.`),
  tryAnotherCard: 'Try another card.',
  threeDsTitle: 'Card authentication (3-D Secure)',
  threeDsSandbox: 'Test environment: choose the authentication result the issuing bank would give.',
  threeDsSucceed: 'Authenticate successfully',
  threeDsFail: 'Fail the authentication',
  threeDsWorking: 'Sending the authentication result…',
  pixTitle: 'Pay with Pix',
  pixInstructions: 'Open your bank app, choose Pix and scan the QR code or paste the code below.',
  pixQrAlt: 'Pix QR code',
  pixCode: 'Pix copy and paste code',
  copy: 'Copy code',
  copied: 'Code copied.',
  timeLeft: (time) => `Time left: ${time}`,
  pixExpired: 'The time to pay this Pix is over.',
  boletoTitle: 'Pay with boleto',
  boletoInstructions: 'Pay in your bank app with the digitable line or print the boleto.',
  boletoLine: 'Digitable line',
  dueDate: (date) => `Due date: ${date}`,
  boletoPdf: 'Open the boleto to print',
  waitingPayment: 'Waiting for the payment. This page updates by itself.',
  processing: 'We are confirming your payment…',
  approved: 'Payment approved',
  approvedDetail: (card) => `Paid with ${card}.`,
  paid: 'Payment received',
  failed: 'Payment not approved',
  failedAttemptLimit: 'The limit of card attempts was reached.',
  canceled: 'Payment canceled',
  expired: 'The time to pay is over.',
  endNote: 'You may close this page now.',
  invalidLink: 'This payment link is invalid or no longer valid.',
  notConfigured: 'The shop cannot take card payments yet. Please contact the shop.',
  tooManyRequests: (minutes) => `Too many attempts. Try again in ${minutes} min.`,
  network: 'Could not connect. Check your connection and try again.',
  unexpected: 'Something went wrong. Please try again.',
  retry: 'Try again',
};

export const MESSAGES: Record<Locale, Messages> = { 'pt-BR': PT_BR, en: EN };
