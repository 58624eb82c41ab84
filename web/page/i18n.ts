/**
 * The page's own texts (everything around the step components, which arrive already translated) in
 * the three languages of D5. `{name}` placeholders are filled by `tr()`.
 */

export type Lang = 'en' | 'ru' | 'es';

const TEXTS = {
  title: { en: 'Payment', ru: 'Оплата', es: 'Pago' },
  brand: { en: 'Crypto payment', ru: 'Оплата криптовалютой', es: 'Pago con cripto' },
  loading: { en: 'Loading…', ru: 'Загрузка…', es: 'Cargando…' },
  invalid: {
    en: 'This payment link is not valid. Ask the shop for a new one.',
    ru: 'Эта ссылка на оплату недействительна. Запросите новую у магазина.',
    es: 'Este enlace de pago no es válido. Pide uno nuevo a la tienda.',
  },
  expired: {
    en: 'This payment link has expired. Nothing was charged; ask the shop for a new one.',
    ru: 'Срок действия ссылки истёк. Средства не списаны; запросите новую ссылку у магазина.',
    es: 'Este enlace de pago ha caducado. No se cobró nada; pide uno nuevo a la tienda.',
  },
  pay_to: { en: 'Pay to', ru: 'Получатель', es: 'Pagar a' },
  order: { en: 'Order', ru: 'Заказ', es: 'Pedido' },
  transaction: { en: 'Transaction', ru: 'Транзакция', es: 'Transacción' },
  network: { en: 'Network', ru: 'Сеть', es: 'Red' },
  token: { en: 'Coin', ru: 'Монета', es: 'Moneda' },
  amount: { en: 'Amount', ru: 'Сумма', es: 'Importe' },
  time_left: { en: 'Time left', ru: 'Осталось', es: 'Tiempo restante' },
  continue: { en: 'Continue', ru: 'Продолжить', es: 'Continuar' },
  confirm_wallet: {
    en: 'Open wallet to confirm',
    ru: 'Подтвердить в кошельке',
    es: 'Confirmar en la billetera',
  },
  waiting_wallet: {
    en: 'Confirm the request in your wallet…',
    ru: 'Подтвердите запрос в кошельке…',
    es: 'Confirma la solicitud en tu billetera…',
  },
  waiting_approval: {
    en: 'Waiting for the approval to be confirmed on the network…',
    ru: 'Ждём подтверждения разрешения в сети…',
    es: 'Esperando a que la red confirme la aprobación…',
  },
  try_again: { en: 'Try again', ru: 'Попробовать снова', es: 'Intentar de nuevo' },
  choose_wallet: { en: 'Choose a wallet', ru: 'Выберите кошелёк', es: 'Elige una billetera' },
  no_wallet: {
    en: 'No crypto wallet was found in this browser. Open this page in your wallet app’s browser, or install a wallet extension.',
    ru: 'В этом браузере нет криптокошелька. Откройте эту страницу в браузере приложения кошелька или установите расширение кошелька.',
    es: 'No se encontró ninguna billetera en este navegador. Abre esta página en el navegador de tu app de billetera o instala una extensión.',
  },
  open_in: { en: 'Open in {name}', ru: 'Открыть в {name}', es: 'Abrir en {name}' },
  rejected: {
    en: 'The request was rejected in the wallet.',
    ru: 'Запрос отклонён в кошельке.',
    es: 'La solicitud fue rechazada en la billetera.',
  },
  pending_request: {
    en: 'Your wallet already has a request waiting: open the wallet to answer it.',
    ru: 'В кошельке уже ждёт запрос: откройте кошелёк, чтобы ответить.',
    es: 'Tu billetera ya tiene una solicitud pendiente: ábrela para responder.',
  },
  unknown_chain: {
    en: 'Your wallet does not know this network (chain ID {chain}). Add it in your wallet, then try again.',
    ru: 'Кошелёк не знает эту сеть (chain ID {chain}). Добавьте её в кошельке и попробуйте снова.',
    es: 'Tu billetera no conoce esta red (chain ID {chain}). Añádela en tu billetera e inténtalo de nuevo.',
  },
  wrong_account: {
    en: 'The wallet is on account {got}, but this payment is set up for {want}. Switch the account in your wallet, or choose “Change wallet” if offered.',
    ru: 'В кошельке выбран счёт {got}, а платёж настроен на {want}. Переключите счёт в кошельке или выберите «Сменить кошелёк», если доступно.',
    es: 'La billetera está en la cuenta {got}, pero este pago es para {want}. Cambia la cuenta en tu billetera o elige «Cambiar billetera» si aparece.',
  },
  reverted: {
    en: 'The network would reject this transaction (reverted). Check your balance and try again.',
    ru: 'Сеть отклонит эту транзакцию (revert). Проверьте баланс и попробуйте снова.',
    es: 'La red rechazaría esta transacción (revert). Revisa tu saldo e inténtalo de nuevo.',
  },
  wallet_error: {
    en: 'The wallet answered with an error: {message}',
    ru: 'Кошелёк вернул ошибку: {message}',
    es: 'La billetera respondió con un error: {message}',
  },
  no_accounts: {
    en: 'The wallet shared no account.',
    ru: 'Кошелёк не предоставил счёт.',
    es: 'La billetera no compartió ninguna cuenta.',
  },
  bad_amount: {
    en: 'Enter a positive amount, for example 10.5',
    ru: 'Введите положительную сумму, например 10.5',
    es: 'Introduce un importe positivo, por ejemplo 10.5',
  },
  server_error: {
    en: 'Something went wrong: {message}',
    ru: 'Что-то пошло не так: {message}',
    es: 'Algo salió mal: {message}',
  },
  offline: {
    en: 'Connection problem. Retrying…',
    ru: 'Проблема со связью. Повторяем…',
    es: 'Problema de conexión. Reintentando…',
  },
  returning: {
    en: 'Returning to the shop in {seconds} s…',
    ru: 'Возврат в магазин через {seconds} с…',
    es: 'Volviendo a la tienda en {seconds} s…',
  },
  return_now: { en: 'Return to the shop', ru: 'Вернуться в магазин', es: 'Volver a la tienda' },
  close_hint: {
    en: 'You can close this window.',
    ru: 'Это окно можно закрыть.',
    es: 'Puedes cerrar esta ventana.',
  },
  in_progress: { en: 'Working…', ru: 'Выполняется…', es: 'Procesando…' },
} as const satisfies Record<string, Record<Lang, string>>;

export type TextKey = keyof typeof TEXTS;

let current: Lang = 'en';

/** Sets the page language; anything but `ru`/`es` is English. */
export function setLang(value: string | null | undefined): Lang {
  current = value === 'ru' || value === 'es' ? value : 'en';
  document.documentElement.lang = current;
  return current;
}

/** The text of `key` in the page language with `{name}` placeholders filled. */
export function tr(key: TextKey, params: Record<string, string | number> = {}): string {
  return TEXTS[key][current].replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}
