import type { ConsumerMessage, DeclineClassification, Reversibility, RetryAction } from './decline-classification';

/**
 * Canonical classification of issuer return codes, after the ABECS standard (Normativo 21, the Brazilian card
 * industry's list of standardized decline codes, in force since July 2020, revised 2022/2023). One row per raw code;
 * where a network gives the same code another meaning, BRAND_OVERRIDES says so. Amex answers are mapped by the
 * acquirers to two-character codes (the "de/para" column of the standard); those are listed too.
 *
 * Deliberate deviation: the contract (section 5) fixes 82 as INVALID_CVV, REVERSIBLE (ABECS: invalid card
 * cryptogram, irreversible), because that is how the sandbox acquirer and most e-commerce acquirers use it.
 */

const M = {
  approved: { ptBR: 'Transação aprovada.', en: 'Transaction approved.' },
  contactIssuer: { ptBR: 'Contate a central do seu cartão.', en: 'Please contact your card issuer.' },
  notAuthorized: { ptBR: 'Não autorizada.', en: 'Not authorized.' },
  checkCard: { ptBR: 'Verifique os dados do cartão.', en: 'Please check your card details.' },
  notAllowedNoRetry: { ptBR: 'Transação não permitida - não tente novamente.', en: 'Transaction not allowed - do not try again.' },
  notAllowedForCard: { ptBR: 'Transação não permitida para o cartão.', en: 'This card does not allow this transaction.' },
  notAllowedForCardNoRetry: {
    ptBR: 'Transação não permitida para o cartão - não tente novamente.',
    en: 'This card does not allow this transaction - do not try again.',
  },
  cardErrorNoRetry: { ptBR: 'Erro no cartão - não tente novamente.', en: 'Card error - do not try again.' },
  amountNotAllowed: {
    ptBR: 'Valor da transação não permitido - não tente novamente.',
    en: 'Transaction amount not allowed - do not try again.',
  },
  installmentsInvalid: { ptBR: 'Parcelamento inválido - não tente novamente.', en: 'Invalid installment plan - do not try again.' },
  pinTries: {
    ptBR: 'Excedidas tentativas de senha. Contate a central do seu cartão.',
    en: 'Too many PIN attempts. Please contact your card issuer.',
  },
  invalidPin: { ptBR: 'Senha inválida.', en: 'Invalid PIN.' },
  invalidPinNoRetry: { ptBR: 'Senha inválida - não tente novamente.', en: 'Invalid PIN - do not try again.' },
  useNewPin: { ptBR: 'Senha inválida. Utilize a nova senha.', en: 'Invalid PIN. Use your new PIN.' },
  communication: { ptBR: 'Falha de comunicação - tente mais tarde.', en: 'Communication failure - please try again later.' },
  redo: { ptBR: 'Refazer a transação.', en: 'Please try the transaction again.' },
  merchantContactAcquirer: { ptBR: 'Lojista, contate o adquirente.', en: 'Merchant, please contact your acquirer.' },
  amountExceeded: { ptBR: 'Valor excedido. Contate a central do seu cartão.', en: 'Amount exceeded. Please contact your card issuer.' },
  withdrawalsExceeded: {
    ptBR: 'Quantidade de saques excedida. Contate a central do seu cartão.',
    en: 'Withdrawal count exceeded. Please contact your card issuer.',
  },
  unlockCard: { ptBR: 'Desbloqueie o cartão.', en: 'Please unlock your card.' },
  noInternational: { ptBR: 'Cartão não permite transação internacional.', en: 'This card does not allow international transactions.' },
  useCredit: { ptBR: 'Utilize a função crédito.', en: 'Please use the credit function.' },
  useDebit: { ptBR: 'Utilize a função débito.', en: 'Please use the debit function.' },
  invalidCvv: { ptBR: 'Código de segurança inválido. Verifique os dados do cartão.', en: 'Invalid security code. Please check your card details.' },
  expiredCard: { ptBR: 'Cartão vencido. Verifique os dados do cartão.', en: 'Expired card. Please check your card details.' },
  sourceAccount: { ptBR: 'Conta origem inválida - não tente novamente.', en: 'Invalid source account - do not try again.' },
  destinationAccount: { ptBR: 'Conta destino inválida - não tente novamente.', en: 'Invalid destination account - do not try again.' },
  contactIssuerNoRetry: {
    ptBR: 'Contate a central do seu cartão - não tente novamente.',
    en: 'Please contact your card issuer - do not try again.',
  },
  preAuthDifference: {
    ptBR: 'Valor diferente da pré-autorização - não tente novamente.',
    en: 'Amount differs from the pre-authorization - do not try again.',
  },
  withdrawalUnavailable: { ptBR: 'Saque não disponível - não tente novamente.', en: 'Withdrawal not available - do not try again.' },
  recurringStopped: {
    ptBR: 'Suspensão de pagamento recorrente para serviço - não tente novamente.',
    en: 'Recurring payments for this service were stopped - do not try again.',
  },
  invalidCardData: { ptBR: 'Dados do cartão inválidos - não tente novamente.', en: 'Invalid card data - do not try again.' },
  idVerification: { ptBR: 'Falha na verificação do ID.', en: 'Identity verification failed.' },
  useChip: { ptBR: 'Utilize o chip.', en: 'Please use the chip.' },
  blockedByCardholder: {
    ptBR: 'Transação bloqueada pelo portador. Verifique o aplicativo do seu banco.',
    en: 'Transaction blocked by the cardholder. Please check your banking app.',
  },
  authenticationRequired: {
    ptBR: 'Autenticação adicional necessária. Tente novamente com autenticação.',
    en: 'Additional authentication required. Please try again with authentication.',
  },
} satisfies Record<string, ConsumerMessage>;

type Source = DeclineClassification['source'];
const R: Reversibility = 'REVERSIBLE';
const I: Reversibility = 'irreversible';

function row(
  rawCode: string,
  reason: string,
  label: string,
  reversibility: Reversibility,
  retryAction: RetryAction,
  consumerMessage: ConsumerMessage,
  source: Source = 'abecs',
): DeclineClassification {
  return { rawCode, approved: false, reason, label, reversibility, retryAction, consumerMessage, source };
}

function approval(rawCode: string, label: string, source: Source): DeclineClassification {
  return { rawCode, approved: true, reason: 'APPROVED', label, reversibility: R, retryAction: 'DO_NOT_RETRY', consumerMessage: M.approved, source };
}

const ROWS: DeclineClassification[] = [
  approval('00', 'Aprovada', 'abecs'),
  approval('11', 'Aprovada (cartão emitido no exterior)', 'network'),

  row('01', 'INVALID_CARD_NUMBER', 'Número do cartão inválido', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
  row('02', 'REFER_TO_ISSUER', 'Transação referida pelo emissor', I, 'CONTACT_ISSUER', M.contactIssuer, 'network'),
  row('03', 'INVALID_MERCHANT', 'Comerciante inválido', I, 'CONTACT_ACQUIRER', M.notAllowedNoRetry),
  row('04', 'RETRY_REQUESTED', 'Refazer a transação (emissor solicita retentativa)', R, 'RETRY_NOW', M.redo),
  row('05', 'DO_NOT_HONOR', 'Genérica', R, 'RETRY_LATER', M.contactIssuer),
  row('06', 'CONTACT_ACQUIRER', 'Consultar credenciador', R, 'CONTACT_ACQUIRER', M.merchantContactAcquirer),
  row('07', 'CONFIRMED_FRAUD', 'Fraude confirmada', I, 'DO_NOT_RETRY', M.notAllowedForCardNoRetry),
  row('12', 'INVALID_TRANSACTION', 'Erro no cartão / erro de formato', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
  row('13', 'INVALID_AMOUNT', 'Valor da transação inválido', I, 'DO_NOT_RETRY', M.amountNotAllowed),
  row('14', 'INVALID_CARD_NUMBER', 'Número do cartão não pertence ao emissor / número inválido', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
  row('15', 'ISSUER_NOT_FOUND', 'Emissor não localizado - BIN incorreto', I, 'RETRY_WITH_ANOTHER_CARD', M.invalidCardData),
  row('19', 'ACQUIRER_ERROR', 'Problema no adquirente', I, 'DO_NOT_RETRY', M.cardErrorNoRetry),
  row('23', 'INVALID_INSTALLMENTS', 'Valor da parcela inválido', I, 'RETRY_WITH_CORRECTED_DATA', M.installmentsInvalid),
  row('30', 'FORMAT_ERROR', 'Erro de formato (mensageria)', I, 'DO_NOT_RETRY', M.cardErrorNoRetry),
  row('38', 'PIN_TRIES_EXCEEDED', 'Excedidas tentativas de senha / compras', R, 'CONTACT_ISSUER', M.pinTries),
  row('39', 'USE_DEBIT_FUNCTION', 'Função incorreta (crédito)', I, 'RETRY_WITH_CORRECTED_DATA', M.useDebit),
  row('41', 'LOST_CARD', 'Cartão perdido', I, 'DO_NOT_RETRY', M.notAllowedNoRetry),
  row('43', 'STOLEN_CARD', 'Cartão roubado', I, 'DO_NOT_RETRY', M.notAllowedNoRetry),
  row('46', 'ACCOUNT_CLOSED', 'Conta encerrada', I, 'RETRY_WITH_ANOTHER_CARD', M.notAllowedForCardNoRetry),
  row('51', 'INSUFFICIENT_FUNDS', 'Saldo/limite insuficiente', R, 'RETRY_LATER', M.notAuthorized),
  row('52', 'USE_CREDIT_FUNCTION', 'Função incorreta (débito)', I, 'RETRY_WITH_CORRECTED_DATA', M.useCredit),
  row('53', 'USE_CREDIT_FUNCTION', 'Função incorreta (débito)', I, 'RETRY_WITH_CORRECTED_DATA', M.useCredit),
  row('54', 'EXPIRED_CARD', 'Cartão vencido / data de expiração inválida', I, 'RETRY_WITH_ANOTHER_CARD', M.expiredCard),
  row('55', 'INVALID_PIN', 'Senha inválida', R, 'RETRY_WITH_CORRECTED_DATA', M.invalidPin),
  row('56', 'INVALID_CARD_NUMBER', 'Número do cartão inválido', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
  row('57', 'TRANSACTION_NOT_PERMITTED_FOR_CARD', 'Transação não permitida para o cartão', R, 'CONTACT_ISSUER', M.notAllowedForCard),
  row('58', 'TRANSACTION_NOT_PERMITTED', 'Transação não permitida (capacidade do terminal)', I, 'DO_NOT_RETRY', M.notAllowedNoRetry),
  row('59', 'SUSPECTED_FRAUD', 'Suspeita de fraude', R, 'CONTACT_ISSUER', M.contactIssuer),
  row('61', 'EXCEEDS_AMOUNT_LIMIT', 'Valor excesso / saque', R, 'CONTACT_ISSUER', M.amountExceeded),
  row('62', 'RESTRICTED_CARD', 'Bloqueio temporário (ex.: inadimplência)', R, 'CONTACT_ISSUER', M.contactIssuer),
  row('63', 'SECURITY_VIOLATION', 'Violação de segurança', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
  row('64', 'AMOUNT_BELOW_MINIMUM', 'Valor mínimo da transação inválido', I, 'DO_NOT_RETRY', M.amountNotAllowed),
  row('65', 'WITHDRAWAL_COUNT_EXCEEDED', 'Quantidade de saques excedida', R, 'CONTACT_ISSUER', M.withdrawalsExceeded),
  row('74', 'PIN_EXPIRED', 'Senha vencida / erro de criptografia de senha', I, 'CONTACT_ISSUER', M.invalidPinNoRetry),
  row('75', 'PIN_TRIES_EXCEEDED', 'Excedidas tentativas de senha', R, 'CONTACT_ISSUER', M.pinTries),
  row('76', 'INVALID_DESTINATION_ACCOUNT', 'Conta destino inválida ou inexistente', I, 'DO_NOT_RETRY', M.destinationAccount),
  row('77', 'INVALID_SOURCE_ACCOUNT', 'Conta origem inválida ou inexistente', I, 'DO_NOT_RETRY', M.sourceAccount),
  row('78', 'CARD_NOT_UNLOCKED', 'Cartão novo sem desbloqueio', R, 'CONTACT_ISSUER', M.unlockCard),
  row('81', 'PIN_CRYPTOGRAPHY_ERROR', 'Erro de criptografia de senha', I, 'CONTACT_ISSUER', M.invalidPinNoRetry),
  row('82', 'INVALID_CVV', 'Código de segurança inválido', R, 'RETRY_WITH_CORRECTED_DATA', M.invalidCvv),
  row('83', 'PIN_EXPIRED', 'Senha vencida / erro de criptografia de senha', I, 'CONTACT_ISSUER', M.invalidPinNoRetry),
  row('86', 'INVALID_PIN', 'Senha inválida', R, 'RETRY_WITH_CORRECTED_DATA', M.invalidPin),
  row('88', 'INVALID_CARD_CRYPTOGRAM', 'Cartão inválido (criptograma) / senha vencida', I, 'RETRY_WITH_ANOTHER_CARD', M.cardErrorNoRetry),
  row('91', 'ISSUER_UNAVAILABLE', 'Emissor fora do ar', R, 'RETRY_LATER', M.communication),
  row('92', 'ROUTING_NOT_FOUND', 'Não localizado pelo roteador', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
  row('93', 'VIOLATION_OF_LAW', 'Transação negada por infração de lei', I, 'DO_NOT_RETRY', M.notAllowedForCardNoRetry),
  row('94', 'DUPLICATE_TRANSMISSION', 'Valor do tracing data duplicado', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
  row('96', 'SYSTEM_MALFUNCTION', 'Falha do sistema', R, 'RETRY_LATER', M.communication),

  row('AB', 'USE_CREDIT_FUNCTION', 'Função incorreta (débito)', I, 'RETRY_WITH_CORRECTED_DATA', M.useCredit),
  row('AC', 'USE_DEBIT_FUNCTION', 'Função incorreta (crédito)', I, 'RETRY_WITH_CORRECTED_DATA', M.useDebit),
  row('B1', 'SURCHARGE_NOT_SUPPORTED', 'Surcharge não suportado', R, 'CONTACT_ISSUER', M.contactIssuer),
  row('B2', 'SURCHARGE_NOT_SUPPORTED', 'Surcharge não suportado pela rede de débito', R, 'CONTACT_ISSUER', M.contactIssuer),
  row('FM', 'USE_CHIP', 'Utilizar o chip', I, 'RETRY_WITH_ANOTHER_CARD', M.useChip),
  row('N0', 'FORCE_STIP', 'Forçar STIP', R, 'RETRY_LATER', M.contactIssuer),
  row('N3', 'CASH_SERVICE_UNAVAILABLE', 'Saque não disponível', I, 'DO_NOT_RETRY', M.withdrawalUnavailable),
  row('N4', 'EXCEEDS_AMOUNT_LIMIT', 'Valor excesso / saque', R, 'CONTACT_ISSUER', M.amountExceeded),
  row('N7', 'INVALID_CVV', 'Erro por mudança de chave dinâmica / CVV2 inválido', I, 'RETRY_WITH_ANOTHER_CARD', M.cardErrorNoRetry),
  row('N8', 'AMOUNT_DIFFERS_FROM_PREAUTHORIZATION', 'Diferença - pré-autorização', I, 'DO_NOT_RETRY', M.preAuthDifference),
  row('P5', 'PIN_CHANGE_REQUIRED', 'Troca de senha / desbloqueio', I, 'CONTACT_ISSUER', M.invalidPinNoRetry),
  row('P6', 'NEW_PIN_NOT_ACCEPTED', 'Nova senha não aceita', R, 'RETRY_WITH_CORRECTED_DATA', M.useNewPin),
  row('R0', 'RECURRING_PAYMENT_STOPPED', 'Suspensão de pagamento recorrente para um serviço', I, 'DO_NOT_RETRY', M.recurringStopped),
  row('R1', 'RECURRING_PAYMENT_STOPPED', 'Suspensão de pagamento recorrente para todos os serviços', I, 'DO_NOT_RETRY', M.recurringStopped),
  row('R2', 'NOT_QUALIFIED_FOR_VISA_PIN', 'Transação não qualificada para Visa PIN', I, 'DO_NOT_RETRY', M.notAllowedForCardNoRetry),
  row('R3', 'ALL_AUTHORIZATIONS_REVOKED', 'Suspensão de todas as ordens de autorização', I, 'DO_NOT_RETRY', M.recurringStopped),
  row('6P', 'ID_VERIFICATION_FAILED', 'Falha na validação de ID', I, 'RETRY_WITH_CORRECTED_DATA', M.idVerification),
  // Visa additions adopted by the acquirers next to the ABECS table (category 2: issuer cannot approve now).
  row('1A', 'AUTHENTICATION_REQUIRED', 'Autenticação adicional requerida', R, 'RETRY_WITH_AUTHENTICATION', M.authenticationRequired, 'network'),
  row('5C', 'TRANSACTION_NOT_SUPPORTED_BY_ISSUER', 'Transação não suportada / bloqueada pelo emissor', R, 'RETRY_LATER', M.notAllowedForCard, 'network'),
  row('9G', 'BLOCKED_BY_CARDHOLDER', 'Bloqueada pelo portador - contate o portador', R, 'CONTACT_ISSUER', M.blockedByCardholder, 'network'),

  // Amex answers as the acquirers map them to two characters (ABECS "Amex de/para").
  row('FA', 'DO_NOT_HONOR', 'Genérica / suspeita de fraude (Amex)', R, 'RETRY_LATER', M.contactIssuer, 'abecs_amex_mapping'),
  row('A5', 'INSUFFICIENT_FUNDS', 'Saldo/limite insuficiente (Amex)', R, 'RETRY_LATER', M.notAuthorized, 'abecs_amex_mapping'),
  row('A6', 'INVALID_PIN', 'Senha inválida (Amex)', R, 'RETRY_WITH_CORRECTED_DATA', M.invalidPin, 'abecs_amex_mapping'),
  row('FD', 'TRANSACTION_NOT_PERMITTED', 'Transação não permitida / cartão perdido ou roubado (Amex)', I, 'DO_NOT_RETRY', M.notAllowedNoRetry, 'abecs_amex_mapping'),
  row('08', 'INVALID_CARD_NUMBER', 'Número do cartão inválido / violação de segurança (Amex)', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard, 'abecs_amex_mapping'),
  row('DA', 'INVALID_MERCHANT', 'Comerciante inválido (Amex)', I, 'CONTACT_ACQUIRER', M.notAllowedNoRetry, 'abecs_amex_mapping'),
  row('A2', 'INVALID_TRANSACTION', 'Erro no cartão / parcela inválida (Amex)', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard, 'abecs_amex_mapping'),
  row('A3', 'FORMAT_ERROR', 'Erro de formato (Amex)', I, 'DO_NOT_RETRY', M.cardErrorNoRetry, 'abecs_amex_mapping'),
  row('JB', 'INVALID_AMOUNT', 'Valor da transação inválido (Amex)', I, 'DO_NOT_RETRY', M.amountNotAllowed, 'abecs_amex_mapping'),
  row('A4', 'PIN_TRIES_EXCEEDED', 'Excedidas tentativas de senha (Amex)', R, 'CONTACT_ISSUER', M.pinTries, 'abecs_amex_mapping'),
  row('BV', 'EXPIRED_CARD', 'Cartão vencido (Amex)', I, 'RETRY_WITH_ANOTHER_CARD', M.expiredCard, 'abecs_amex_mapping'),
  row('A7', 'INVALID_CARD_CRYPTOGRAM', 'Senha vencida / cartão inválido (Amex)', I, 'RETRY_WITH_ANOTHER_CARD', M.cardErrorNoRetry, 'abecs_amex_mapping'),
  row('A1', 'ISSUER_UNAVAILABLE', 'Emissor fora do ar (Amex)', R, 'RETRY_LATER', M.communication, 'abecs_amex_mapping'),
  row('AE', 'SYSTEM_MALFUNCTION', 'Falha do sistema (Amex)', R, 'RETRY_LATER', M.communication, 'abecs_amex_mapping'),
];

export const DECLINE_TABLE: ReadonlyMap<string, DeclineClassification> = new Map(ROWS.map((r) => [r.rawCode, r]));
if (DECLINE_TABLE.size !== ROWS.length) throw new Error('decline table holds a repeated raw code');

export type CardNetwork = 'visa' | 'mastercard' | 'elo' | 'amex' | 'hipercard';

/** Codes whose meaning differs by network in the ABECS table (the base row above is the most common meaning). */
export const BRAND_OVERRIDES: Readonly<Partial<Record<CardNetwork, Readonly<Record<string, DeclineClassification>>>>> = {
  visa: {
    '04': row('04', 'PICK_UP_CARD', 'Recolher cartão (não há fraude)', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
    '06': row('06', 'CARD_ERROR', 'Erro no cartão', I, 'RETRY_WITH_ANOTHER_CARD', M.checkCard),
    '12': row('12', 'FORMAT_ERROR', 'Erro de formato (mensageria)', I, 'DO_NOT_RETRY', M.cardErrorNoRetry),
    '46': row('46', 'ACCOUNT_CLOSED', 'Conta encerrada', I, 'RETRY_WITH_ANOTHER_CARD', M.notAllowedForCardNoRetry),
    '62': row('62', 'DOMESTIC_CARD_INTERNATIONAL_TRANSACTION', 'Cartão doméstico - transação internacional', R, 'RETRY_WITH_ANOTHER_CARD', M.noInternational),
    '64': row('64', 'ANTI_MONEY_LAUNDERING', 'Não cumprimento das leis antilavagem de dinheiro', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
    '76': row('76', 'INVALID_REVERSAL', 'Reversão inválida', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
    '78': row('78', 'CARD_NOT_UNLOCKED', 'Cartão novo sem desbloqueio', I, 'CONTACT_ISSUER', M.unlockCard),
  },
  mastercard: {
    '04': row('04', 'PICK_UP_CARD', 'Recolher cartão (não há fraude) / fraude confirmada', I, 'DO_NOT_RETRY', M.contactIssuerNoRetry),
    '12': row('12', 'INVALID_INSTALLMENTS', 'Valor da parcela inválido', I, 'RETRY_WITH_CORRECTED_DATA', M.installmentsInvalid),
    '13': row('13', 'INVALID_AMOUNT', 'Valor da transação inválido / valor mínimo', I, 'DO_NOT_RETRY', M.amountNotAllowed),
    '30': row('30', 'ACQUIRER_ERROR', 'Problema no adquirente / erro de formato', I, 'DO_NOT_RETRY', M.cardErrorNoRetry),
    '57': row('57', 'RESTRICTED_CARD', 'Bloqueio temporário / cartão sem desbloqueio', R, 'CONTACT_ISSUER', M.contactIssuer),
    '62': row('62', 'DOMESTIC_CARD_INTERNATIONAL_TRANSACTION', 'Cartão doméstico - transação internacional / conta encerrada', I, 'RETRY_WITH_ANOTHER_CARD', M.noInternational),
    '63': row('63', 'SUSPECTED_FRAUD', 'Suspeita de fraude / violação de segurança', R, 'CONTACT_ISSUER', M.contactIssuer),
  },
  elo: {
    '57': row('57', 'TRANSACTION_NOT_PERMITTED_FOR_CARD', 'Transação não permitida para o cartão / fraude confirmada', I, 'DO_NOT_RETRY', M.notAllowedForCardNoRetry),
    '58': row('58', 'INVALID_MERCHANT', 'Comerciante inválido', I, 'CONTACT_ACQUIRER', M.notAllowedNoRetry),
    '62': row('62', 'RESTRICTED_CARD', 'Bloqueio temporário / cartão doméstico em transação internacional', R, 'CONTACT_ISSUER', M.contactIssuer),
  },
};

/** What an unknown code means: the issuer refused and nothing more is known, so the buyer may try again. */
export const UNKNOWN_CODE_FALLBACK: Omit<DeclineClassification, 'rawCode'> = {
  approved: false,
  reason: 'UNMAPPED_DECLINE',
  label: 'Recusa com código não mapeado',
  reversibility: R,
  retryAction: 'RETRY_LATER',
  consumerMessage: { ptBR: 'Não autorizada. Contate a central do seu cartão.', en: 'Not authorized. Please contact your card issuer.' },
  source: 'fallback',
};

/**
 * Every canonical reason a payment's decline can carry (what `declineReason` filters on): the decline rows, the
 * network-specific meanings and the fallback for unknown codes. Approvals are not reasons.
 */
export const DECLINE_REASONS: readonly string[] = [
  ...new Set([
    ...[...DECLINE_TABLE.values(), ...Object.values(BRAND_OVERRIDES).flatMap((codes) => Object.values(codes ?? {}))]
      .filter((r) => !r.approved)
      .map((r) => r.reason),
    UNKNOWN_CODE_FALLBACK.reason,
  ]),
].sort();
