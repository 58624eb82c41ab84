/** The page's only server calls: `/v1/hpp/*` with the token in the body (section 5.2). */

export interface StepOption {
  label: string;
  action: string;
  value: string;
  note?: string | null;
  disabled?: boolean | null;
  reason?: string | null;
}

export interface Component {
  type: string;
  text?: string | null;
  options?: StepOption[] | null;
  name?: string | null;
  label?: string | null;
  placeholder?: string | null;
  action?: string | null;
  status?: string | null;
}

export interface WalletAction {
  method: string;
  params: unknown[];
  chain_id?: string | null;
}

/** Section 2.3, REST spelling. */
export interface StepResponse {
  step: string;
  session: string;
  status: string;
  components?: Component[] | null;
  wallet_action?: WalletAction | null;
  submit_action?: string | null;
}

/** `POST /v1/hpp/link`: what the page shows around the steps. */
export interface LinkInfo {
  session: string;
  language: string;
  network?: string | null;
  token?: string | null;
  amount?: string | null;
  expires_at?: string | null;
  paid: boolean;
  return_url?: string | null;
  /** Who the player pays (the merchant's display name). */
  merchant_name?: string | null;
  /** The merchant's reference of the order. */
  order_reference?: string | null;
  /** The payment transaction, once reported or found. */
  tx_hash?: string | null;
}

/** An error envelope (section 7.1), or a network failure (`status` 0, code `network`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, body: Record<string, string>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (error) {
    throw new ApiError(0, 'network', (error as Error).message);
  }
  const json = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok) throw new ApiError(res.status, json.error?.code ?? 'internal', json.error?.message ?? '');
  return json as T;
}

/** Steps this page has posted and had answered: a status read sent before the last may predate it. */
let stepsAnswered = 0;

export const api = {
  link: (token: string) => call<LinkInfo>('/v1/hpp/link', { token }),
  /**
   * The session's step, or undefined when a step this page posted was answered while the read was on
   * its way: the server may have served the read before that step, and applying it would take the
   * player back a step (the step's own answer is newer).
   */
  async status(token: string): Promise<StepResponse | undefined> {
    const before = stepsAnswered;
    const step = await call<StepResponse>('/v1/hpp/status', { token });
    return before === stepsAnswered ? step : undefined;
  },
  async step(token: string, action: string, value?: string): Promise<StepResponse> {
    const body: Record<string, string> = value === undefined ? { token, action } : { token, action, value };
    const step = await call<StepResponse>('/v1/hpp/step', body);
    stepsAnswered++;
    return step;
  },
};
