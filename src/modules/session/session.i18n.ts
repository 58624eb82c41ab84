/**
 * Every text a session's components show, in the three languages of D5. `{name}` placeholders are
 * filled by `t()`. A language outside the table (or a region of one) falls back as section 4.3 says.
 */

export const LANGUAGES = ['en', 'ru', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

const TEXTS = {
  'network_select.heading': { en: 'Choose a network', ru: 'Выберите сеть', es: 'Elige una red' },
  'connect_wallet.heading': {
    en: 'Connect your wallet',
    ru: 'Подключите кошелёк',
    es: 'Conecta tu billetera',
  },
  'connect_wallet.text': {
    en: 'Connect a wallet on {network} to continue.',
    ru: 'Подключите кошелёк в сети {network}, чтобы продолжить.',
    es: 'Conecta una billetera en {network} para continuar.',
  },
  'connect_wallet.label': { en: 'Connect wallet', ru: 'Подключить кошелёк', es: 'Conectar billetera' },
  'token_select.heading': { en: 'Choose a coin', ru: 'Выберите монету', es: 'Elige una moneda' },
  'token_select.note': { en: 'Balance: {amount}', ru: 'Баланс: {amount}', es: 'Saldo: {amount}' },
  'reason.insufficient_balance': {
    en: 'Insufficient balance',
    ru: 'Недостаточно средств',
    es: 'Saldo insuficiente',
  },
  'reason.not_supported': {
    en: 'Token not supported by this wallet',
    ru: 'Токен не поддерживается',
    es: 'Token no compatible',
  },
  'reason.precision': {
    en: 'The amount has more decimals than this coin supports',
    ru: 'У суммы больше знаков после запятой, чем поддерживает монета',
    es: 'El importe tiene más decimales de los que admite esta moneda',
  },
  'enter_amount.heading': { en: 'Enter the amount', ru: 'Введите сумму', es: 'Introduce el importe' },
  'enter_amount.text': {
    en: 'Available: {balance} {token}',
    ru: 'Доступно: {balance} {token}',
    es: 'Disponible: {balance} {token}',
  },
  'enter_amount.label': { en: 'Amount ({token})', ru: 'Сумма ({token})', es: 'Importe ({token})' },
  'awaiting_approval.heading': {
    en: 'Approve {token}',
    ru: 'Разрешите списание {token}',
    es: 'Aprueba {token}',
  },
  'awaiting_approval.text': {
    en: 'Allow the payment contract to transfer {amount} {token} from your wallet, then confirm in your wallet.',
    ru: 'Разрешите платёжному контракту списать {amount} {token} с вашего кошелька и подтвердите в кошельке.',
    es: 'Permite que el contrato de pago transfiera {amount} {token} desde tu billetera y confirma en tu billetera.',
  },
  'awaiting_payment.heading': { en: 'Confirm the payment', ru: 'Подтвердите платёж', es: 'Confirma el pago' },
  'awaiting_payment.text': {
    en: 'Pay {amount} {token} on {network}. Confirm the transaction in your wallet.',
    ru: 'Оплатите {amount} {token} в сети {network}. Подтвердите транзакцию в кошельке.',
    es: 'Paga {amount} {token} en {network}. Confirma la transacción en tu billetera.',
  },
  'processing.text': {
    en: 'Payment sent. Waiting for network confirmations…',
    ru: 'Платёж отправлен. Ждём подтверждений сети…',
    es: 'Pago enviado. Esperando confirmaciones de la red…',
  },
  'completed.text': {
    en: 'Payment received. Thank you!',
    ru: 'Платёж получен. Спасибо!',
    es: 'Pago recibido. ¡Gracias!',
  },
  'failed.text': {
    en: 'The payment did not go through. Nothing was charged.',
    ru: 'Платёж не прошёл. Средства не списаны.',
    es: 'El pago no se completó. No se cobró nada.',
  },
  'reverted.text': {
    en: 'The payment transaction was rejected by the network. No tokens moved; only the network fee was spent.',
    ru: 'Сеть отклонила платёжную транзакцию. Токены не списаны, потрачена только комиссия сети.',
    es: 'La red rechazó la transacción de pago. No se movieron tokens; solo se pagó la comisión de red.',
  },
  'button.change_wallet': { en: 'Change wallet', ru: 'Сменить кошелёк', es: 'Cambiar billetera' },
  'button.continue': { en: 'Continue', ru: 'Продолжить', es: 'Continuar' },
} as const satisfies Record<string, Record<Language, string>>;

export type TextKey = keyof typeof TEXTS;

/** `en-GB` → `en`; anything outside the table → `en`. Never refuses. */
export function normaliseLanguage(value: string | null | undefined): Language {
  const primary = (value ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as Language) : 'en';
}

/** The text of `key` in `language` with `{name}` placeholders filled. */
export function t(language: string, key: TextKey, params: Record<string, string> = {}): string {
  const text: string = TEXTS[key][normaliseLanguage(language)];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole);
}
