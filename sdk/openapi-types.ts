// Generated from schema/openapi.json by `npm run schema:print` (openapi-typescript). Do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hpp/sdk.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The iframe SDK: a global CryptoCashier with open({url, onCompleted, onFailed, onClose}) */
        get: operations["getHppSdkJs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/p/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The hosted payment page
         * @description Renders for any token with 200; the token is checked by the calls the page makes, and the page says when a link names no session or has expired.
         */
        get: operations["getPToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database and a node of every network answer */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Balances of the settlement wallets
         * @description Every token of every network the merchant has a settlement wallet on, in network-file order, read now. A token whose read fails, and every token of a network whose nodes do not answer, carries error instead of amount; the response is still 200.
         */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cashier/init": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a deposit session
         * @description Returns the first step. Where it starts depends on what is prefilled: nothing → network_select; network, network+token, network+token+amount → connect_wallet. A repeated external_order_id with the same parameters returns the same session; with different parameters it is 409.
         */
        post: operations["postCashierInit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cashier/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a session’s current step
         * @description Read-only and safe to poll; each poll is its own signed request.
         */
        post: operations["postCashierStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cashier/step": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit the current step’s action
         * @description An action of another step or on a terminal session is 400 invalid_action; a value that is not one of the offered options is 400 validation; approval_submitted is 400 tx_reverted when the approval reverted and 503 unavailable while it is not mined or the allowance is not readable yet.
         */
        post: operations["postCashierStep"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hpp/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read the link around the steps (hosted page)
         * @description What the page shows besides the step: its language, network, token and amount so far, the link expiry (which applies only while no payment is reported or found), the return URL, who is paid, the order reference and the payment transaction. Errors as hpp/status.
         */
        post: operations["postHppLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hpp/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a hosted payment link
         * @description Opens a deposit session with the cashier init prefill rules plus return_url, and returns its page link. The token is returned once and stored only as a hash. A repeated external_order_id with the same parameters (language and return_url aside: the latest wins) returns the same session with a fresh token; the earlier token stops working (404). Other parameters, or an order no longer pending or with a payment reported or found, are 409.
         */
        post: operations["postHppSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hpp/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read the current step (hosted page)
         * @description Read-only, safe to poll. Once a payment is reported or found it answers until 24 hours after the session ended.
         */
        post: operations["postHppStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hpp/step": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit the current step’s action (hosted page)
         * @description The cashier step machine on the session the token opens. Missing token 400; no session carries it 404; link expired while the order is pending with no payment reported or found 410.
         */
        post: operations["postHppStep"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a payout order to sign
         * @description Checks that the payout wallet holds the amount and that the payout router may pull it, assigns a router nonce and returns the EIP-712 typed_data, signable for 30 minutes. A repeated external_id with the same parameters returns the same payout and the same order (same nonce and deadline); with different parameters, or used by a batch item, it is 409. insufficient_allowance / insufficient_funds carry details {required, available, token, owner, spender}.
         */
        post: operations["postPayouts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/approval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Build the payout wallet’s approval of a payout router
         * @description EVM: a legacy transaction (from, to, data, value, nonce, gas, gasPrice, chainId as hex strings) plus the same call as a wallet_action. Tron: raw_transaction and tx_id — sign the 32-byte tx_id with the Tron payout wallet. batch: true approves the batch router.
         */
        post: operations["postPayoutsApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/approval/broadcast": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Broadcast a signed approval
         * @description Only a transaction that is exactly the approval built (token, spender, amount, from and signed by the payout wallet, this chain; on EVM also the legacy type, nonce, gas and gasPrice of an approval built for this merchant, so no access or authorization list) is broadcast: another key is 403, anything else 400, and neither reaches the network. Tron: raw_transaction + signature, or the whole signed transaction as signed_transaction. tx_hash on Tron is the transaction id (hex, without 0x).
         */
        post: operations["postPayoutsApprovalBroadcast"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/approval/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Where an approval stands
         * @description pending, confirmed, failed, or not_found (briefly after broadcast, else dropped); allowance is what the router may pull from the payout wallet now. A transaction that is not an approval of this token to this router from the payout wallet is refused.
         */
        post: operations["postPayoutsApprovalStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Authorize a payout with the payout wallet’s signature
         * @description The signature must recover to the payout wallet of the payout’s network (the settlement wallet on EVM networks, the Tron payout wallet on tron); v 0/1 is normalised to 27/28. The payout becomes authorized and is relayed off the request path. Authorizing a payout that is already authorized or beyond returns it unchanged. Past the 30-minute deadline it is 410 and the payout settles failed with failure_reason "expired".
         */
        post: operations["postPayoutsAuthorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a batch payout order to sign
         * @description 1 to 100 items of one token on one network. Each item is a payout of its own (po_ id, own status and webhook); item external_ids must be unique in the batch and unused by any payout of the merchant (409). The batch router’s allowance and the payout wallet’s balance must cover the total. A repeated batch external_id with the same parameters returns the same batch and order.
         */
        post: operations["postPayoutsBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/batch/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Authorize a batch with the payout wallet’s signature
         * @description Every item becomes authorized and the batch is relayed off the request path. The same signature again returns the batch unchanged; a different valid signature is 409; past the deadline 410.
         */
        post: operations["postPayoutsBatchAuthorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/batch/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a batch and every item
         * @description Read-only. The status is derived from the items: pending, authorized, processing, completed, partially_completed (every item settled, some failed: each failed item has failure_reason), failed.
         */
        post: operations["postPayoutsBatchStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a payout
         * @description Read-only and safe to poll. Another merchant’s payout is indistinguishable from a missing one (404).
         */
        post: operations["postPayoutsStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallet/address": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The player’s standing deposit address on a network
         * @description Idempotent: call it on every visit. The address is a counterfactual forwarder bound to the merchant’s settlement wallet of that network and the player; tokens sent to it are credited once final and announced with deposit.confirmed, then swept to that wallet. After a settlement-wallet change the player gets a new address; the old one keeps being credited and swept to the wallet it was bound to.
         */
        post: operations["postWalletAddress"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                /**
                 * @description Stable error code; the HTTP status says the rest (405, 408, 413, 415 and 431 are `validation`).
                 * @enum {string}
                 */
                code: "validation" | "unsupported" | "invalid_action" | "insufficient_funds" | "insufficient_allowance" | "tx_reverted" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "expired" | "unavailable" | "internal";
                /** @description For insufficient_* errors: required, available, token, owner, spender. */
                details?: Record<string, never>;
                message: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHppSdkJs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/javascript": string;
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The one-time token of the hosted link. */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status?: "ready";
                    };
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        balances: {
                            /** @description Token contract (T… on tron). */
                            address: string;
                            /** @description Whole units; absent when the read failed. */
                            amount?: string;
                            decimals: number;
                            /** @description Present instead of amount when this read failed. */
                            error?: string;
                            network: string;
                            /** @description Base units. */
                            raw?: string;
                            token: string;
                            /** @description The settlement wallet this entry reads (T… on tron). */
                            wallet: string;
                        }[];
                        /** @description The EVM settlement wallet (the first EVM network’s in network-file order). */
                        wallet: string;
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postCashierInit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Prefill, whole units; skips enter_amount. */
                    amount?: string;
                    /** @description Per-session webhook target; empty falls back to the merchant default. */
                    callback_url?: "" | string;
                    /** @description Idempotency key: same parameters return the original session, different ones are 409. */
                    external_order_id?: string;
                    /** @description en, ru or es; region ignored; anything else is English. */
                    language?: string;
                    /** @description Prefill; skips network_select. */
                    network?: string;
                    /** @description Echoed in the settlement webhook. */
                    player_id?: string;
                    /** @description Prefill; requires network. */
                    token?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        components: {
                            action?: string;
                            label?: string;
                            name?: string;
                            options?: {
                                action: string;
                                disabled?: boolean;
                                label: string;
                                note?: string;
                                reason?: string;
                                value: string;
                            }[];
                            placeholder?: string;
                            /** @enum {string} */
                            status?: "info" | "success" | "error";
                            text?: string;
                            /** @enum {string} */
                            type: "heading" | "text" | "button_group" | "input" | "status" | "spinner" | "wallet_connect";
                        }[];
                        session: string;
                        /** @enum {string} */
                        status: "pending" | "processing" | "completed" | "failed";
                        /** @enum {string} */
                        step: "network_select" | "connect_wallet" | "token_select" | "enter_amount" | "awaiting_approval" | "awaiting_payment" | "processing" | "completed" | "failed" | "reverted";
                        submit_action?: string;
                        /** @description Forward untouched to the wallet (EIP-1193 request; switch to chain_id first). */
                        wallet_action?: {
                            chain_id?: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicting reuse of an idempotency key (`conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postCashierStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    session: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        components: {
                            action?: string;
                            label?: string;
                            name?: string;
                            options?: {
                                action: string;
                                disabled?: boolean;
                                label: string;
                                note?: string;
                                reason?: string;
                                value: string;
                            }[];
                            placeholder?: string;
                            /** @enum {string} */
                            status?: "info" | "success" | "error";
                            text?: string;
                            /** @enum {string} */
                            type: "heading" | "text" | "button_group" | "input" | "status" | "spinner" | "wallet_connect";
                        }[];
                        session: string;
                        /** @enum {string} */
                        status: "pending" | "processing" | "completed" | "failed";
                        /** @enum {string} */
                        step: "network_select" | "connect_wallet" | "token_select" | "enter_amount" | "awaiting_approval" | "awaiting_payment" | "processing" | "completed" | "failed" | "reverted";
                        submit_action?: string;
                        /** @description Forward untouched to the wallet (EIP-1193 request; switch to chain_id first). */
                        wallet_action?: {
                            chain_id?: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postCashierStep: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Action of the current step (the step names it as submit_action or in its options). */
                    action: string;
                    session: string;
                    /** @description Empty for actions that carry none. */
                    value?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        components: {
                            action?: string;
                            label?: string;
                            name?: string;
                            options?: {
                                action: string;
                                disabled?: boolean;
                                label: string;
                                note?: string;
                                reason?: string;
                                value: string;
                            }[];
                            placeholder?: string;
                            /** @enum {string} */
                            status?: "info" | "success" | "error";
                            text?: string;
                            /** @enum {string} */
                            type: "heading" | "text" | "button_group" | "input" | "status" | "spinner" | "wallet_connect";
                        }[];
                        session: string;
                        /** @enum {string} */
                        status: "pending" | "processing" | "completed" | "failed";
                        /** @enum {string} */
                        step: "network_select" | "connect_wallet" | "token_select" | "enter_amount" | "awaiting_approval" | "awaiting_payment" | "processing" | "completed" | "failed" | "reverted";
                        submit_action?: string;
                        /** @description Forward untouched to the wallet (EIP-1193 request; switch to chain_id first). */
                        wallet_action?: {
                            chain_id?: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postHppLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The token from the page URL (/p/{token}). */
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Amount in whole units, once entered or prefilled. */
                        amount?: string;
                        /** @description Link expiry (ISO 8601); applies only while paid is false. */
                        expires_at?: string;
                        /**
                         * @description The page language (the components use the same).
                         * @enum {string}
                         */
                        language: "en" | "ru" | "es";
                        /** @description Who the player pays: the merchant display name, else its name. */
                        merchant_name: string;
                        /** @description Network, once chosen or prefilled. */
                        network?: string;
                        /** @description The merchant's external_order_id, if it gave one. */
                        order_reference?: string;
                        /** @description A payment is reported or found: the link no longer expires. */
                        paid: boolean;
                        /** @description Where the page sends the player after a terminal step. */
                        return_url?: string;
                        /** @description Session id. */
                        session: string;
                        /** @description Token symbol, once chosen or prefilled. */
                        token?: string;
                        /** @description The payment transaction once found, else the one reported. */
                        tx_hash?: string;
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Link or order deadline passed (`expired`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postHppSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Prefill, whole units; skips enter_amount. */
                    amount?: string;
                    /** @description Per-session webhook target; empty falls back to the merchant default. */
                    callback_url?: "" | string;
                    /** @description Idempotency key: a repeat with the same parameters returns the same session with a fresh token (the earlier link stops working); other parameters are 409. */
                    external_order_id?: string;
                    /** @description en, ru or es; region ignored; anything else is English. */
                    language?: string;
                    /** @description Prefill; skips network_select. */
                    network?: string;
                    /** @description Echoed in the settlement webhook. */
                    player_id?: string;
                    /** @description Where the page sends the player after a terminal step, with ?status=completed|failed appended. */
                    return_url?: string;
                    /** @description Prefill; requires network. */
                    token?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Link expiry (ISO 8601). */
                        expires_at?: string;
                        /** @description Session id. */
                        session: string;
                        /** @description One-time token, returned once, stored only as a hash. */
                        token: string;
                        /** @description Page address; its path is /p/{token}. */
                        url: string;
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicting reuse of an idempotency key (`conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postHppStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The token from the page URL (/p/{token}). */
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        components: {
                            action?: string;
                            label?: string;
                            name?: string;
                            options?: {
                                action: string;
                                disabled?: boolean;
                                label: string;
                                note?: string;
                                reason?: string;
                                value: string;
                            }[];
                            placeholder?: string;
                            /** @enum {string} */
                            status?: "info" | "success" | "error";
                            text?: string;
                            /** @enum {string} */
                            type: "heading" | "text" | "button_group" | "input" | "status" | "spinner" | "wallet_connect";
                        }[];
                        session: string;
                        /** @enum {string} */
                        status: "pending" | "processing" | "completed" | "failed";
                        /** @enum {string} */
                        step: "network_select" | "connect_wallet" | "token_select" | "enter_amount" | "awaiting_approval" | "awaiting_payment" | "processing" | "completed" | "failed" | "reverted";
                        submit_action?: string;
                        /** @description Forward untouched to the wallet (EIP-1193 request; switch to chain_id first). */
                        wallet_action?: {
                            chain_id?: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Link or order deadline passed (`expired`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postHppStep: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Action of the current step (the step names it as submit_action or in its options). */
                    action: string;
                    /** @description The token from the page URL (/p/{token}). */
                    token: string;
                    /** @description Empty for actions that carry none. */
                    value?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        components: {
                            action?: string;
                            label?: string;
                            name?: string;
                            options?: {
                                action: string;
                                disabled?: boolean;
                                label: string;
                                note?: string;
                                reason?: string;
                                value: string;
                            }[];
                            placeholder?: string;
                            /** @enum {string} */
                            status?: "info" | "success" | "error";
                            text?: string;
                            /** @enum {string} */
                            type: "heading" | "text" | "button_group" | "input" | "status" | "spinner" | "wallet_connect";
                        }[];
                        session: string;
                        /** @enum {string} */
                        status: "pending" | "processing" | "completed" | "failed";
                        /** @enum {string} */
                        step: "network_select" | "connect_wallet" | "token_select" | "enter_amount" | "awaiting_approval" | "awaiting_payment" | "processing" | "completed" | "failed" | "reverted";
                        submit_action?: string;
                        /** @description Forward untouched to the wallet (EIP-1193 request; switch to chain_id first). */
                        wallet_action?: {
                            chain_id?: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Link or order deadline passed (`expired`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayouts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Whole units, e.g. "125.50". */
                    amount: string;
                    /** @description Per-payout webhook target; empty falls back to the merchant default. */
                    callback_url?: "" | string;
                    /** @description Idempotency key: same parameters return the same payout and order; different ones are 409. */
                    external_id?: string;
                    network: string;
                    /** @description 0x + 40 hex on EVM networks; a T… address on tron. */
                    recipient: string;
                    /** @description A token symbol of the network; native coins are refused. */
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        amount: string;
                        /** @description Unix seconds: the order is signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        /**
                         * @description Why a failed payout failed; merchants can branch on it.
                         * @enum {string}
                         */
                        failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                        network: string;
                        payout: string;
                        recipient: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                        token: string;
                        /** @description Relay transaction; present once submitted. */
                        tx_hash?: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "PayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                amount: string;
                                deadline: string;
                                merchant: string;
                                nonce: string;
                                recipient: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutOrder";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_order: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicting reuse of an idempotency key (`conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsApproval: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The cap to approve, whole units. */
                    amount: string;
                    /** @description The batch router instead of the single-payout router. */
                    batch?: boolean;
                    network: string;
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        amount: string;
                        network: string;
                        /** @description The payout wallet that signs. */
                        source: string;
                        /** @description The router to approve (T… on tron). */
                        spender: string;
                        token: string;
                        /** @description EVM: from, to, data, value, nonce, gas, gasPrice, chainId (hex strings). Tron: raw_transaction, tx_id (sign it), fee_limit, expiration. */
                        transaction: {
                            [key: string]: unknown;
                        };
                        /** @description EVM: the same call as an EIP-1193 request. */
                        wallet_action?: {
                            chain_id: string;
                            method: string;
                            params: unknown[];
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsApprovalBroadcast: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The amount the approval was built for. */
                    amount: string;
                    /** @description The batch router instead of the single-payout router. */
                    batch?: boolean;
                    network: string;
                    /** @description Tron: raw_transaction exactly as built. */
                    raw_transaction?: string;
                    /** @description Tron: the signature over tx_id. */
                    signature?: string;
                    /** @description EVM: the signed raw transaction, 0x hex. Tron: optionally the whole signed transaction (JSON). */
                    signed_transaction?: string | {
                        [key: string]: unknown;
                    };
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        network: string;
                        token: string;
                        tx_hash: string;
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsApprovalStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The batch router instead of the single-payout router. */
                    batch?: boolean;
                    network: string;
                    token: string;
                    /** @description From broadcast. */
                    tx_hash: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description What the router may pull now, whole units. */
                        allowance: string;
                        block?: number;
                        network: string;
                        source: string;
                        spender: string;
                        /** @enum {string} */
                        status: "pending" | "confirmed" | "failed" | "not_found";
                        token: string;
                        tx_hash: string;
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsAuthorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    payout: string;
                    /** @description eth_signTypedData_v4 over the typed_data of create; v 0/1 is normalised. */
                    signature: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        amount: string;
                        /** @description Unix seconds: the order is signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        /**
                         * @description Why a failed payout failed; merchants can branch on it.
                         * @enum {string}
                         */
                        failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                        network: string;
                        payout: string;
                        recipient: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                        token: string;
                        /** @description Relay transaction; present once submitted. */
                        tx_hash?: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "PayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                amount: string;
                                deadline: string;
                                merchant: string;
                                nonce: string;
                                recipient: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutOrder";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_order: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Link or order deadline passed (`expired`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where each item’s webhook goes; empty falls back to the merchant default. */
                    callback_url?: "" | string;
                    /** @description Batch idempotency key. */
                    external_id?: string;
                    items: {
                        /** @description Whole units. */
                        amount: string;
                        /** @description The item’s own idempotency key; shares the namespace of payouts. */
                        external_id?: string;
                        /** @description 0x + 40 hex on EVM networks; a T… address on tron. */
                        recipient: string;
                    }[];
                    network: string;
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        batch: string;
                        /** @description Unix seconds: signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        items: {
                            amount: string;
                            external_id?: string;
                            /** @enum {string} */
                            failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                            index: number;
                            payout: string;
                            recipient: string;
                            /** @enum {string} */
                            status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                            tx_hash?: string;
                        }[];
                        network: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "processing" | "completed" | "partially_completed" | "failed";
                        token: string;
                        total: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "BatchPayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                deadline: string;
                                items: {
                                    amount: string;
                                    recipient: string;
                                }[];
                                merchant: string;
                                nonce: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutBatch";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_batch: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_item: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicting reuse of an idempotency key (`conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsBatchAuthorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    batch: string;
                    /** @description eth_signTypedData_v4 over the batch typed_data; v 0/1 is normalised. */
                    signature: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        batch: string;
                        /** @description Unix seconds: signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        items: {
                            amount: string;
                            external_id?: string;
                            /** @enum {string} */
                            failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                            index: number;
                            payout: string;
                            recipient: string;
                            /** @enum {string} */
                            status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                            tx_hash?: string;
                        }[];
                        network: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "processing" | "completed" | "partially_completed" | "failed";
                        token: string;
                        total: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "BatchPayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                deadline: string;
                                items: {
                                    amount: string;
                                    recipient: string;
                                }[];
                                merchant: string;
                                nonce: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutBatch";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_batch: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_item: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicting reuse of an idempotency key (`conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Link or order deadline passed (`expired`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsBatchStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    batch: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        batch: string;
                        /** @description Unix seconds: signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        items: {
                            amount: string;
                            external_id?: string;
                            /** @enum {string} */
                            failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                            index: number;
                            payout: string;
                            recipient: string;
                            /** @enum {string} */
                            status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                            tx_hash?: string;
                        }[];
                        network: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "processing" | "completed" | "partially_completed" | "failed";
                        token: string;
                        total: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "BatchPayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                deadline: string;
                                items: {
                                    amount: string;
                                    recipient: string;
                                }[];
                                merchant: string;
                                nonce: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutBatch";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_batch: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_item: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postPayoutsStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    payout: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        amount: string;
                        /** @description Unix seconds: the order is signable and relayable until then. */
                        deadline: number;
                        external_id?: string;
                        /**
                         * @description Why a failed payout failed; merchants can branch on it.
                         * @enum {string}
                         */
                        failure_reason?: "expired" | "invalid_signature" | "nonce_used" | "insufficient_allowance" | "insufficient_funds" | "transfer_failed" | "reverted";
                        network: string;
                        payout: string;
                        recipient: string;
                        /** @enum {string} */
                        status: "pending" | "authorized" | "submitted" | "completed" | "failed";
                        token: string;
                        /** @description Relay transaction; present once submitted. */
                        tx_hash?: string;
                        /** @description Present only on create: sign it exactly as returned. */
                        typed_data?: {
                            domain: {
                                chain_id: number;
                                /** @constant */
                                name: "PayoutRouter";
                                verifying_contract: string;
                                /** @constant */
                                version: "1";
                            };
                            message: {
                                amount: string;
                                deadline: string;
                                merchant: string;
                                nonce: string;
                                recipient: string;
                                token: string;
                            };
                            /** @constant */
                            primary_type: "PayoutOrder";
                            types: {
                                _e_i_p712_domain: {
                                    name: string;
                                    type: string;
                                }[];
                                _payout_order: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource for this merchant (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWalletAddress: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A network id of the service (eth, bsc, tron, …). */
                    network: string;
                    /** @description The merchant’s player reference: 1 to 128 printable ASCII characters; never written on chain. */
                    player_id: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The standing deposit address: EIP-55 0x on EVM networks, T… on tron. Same pair, same address. */
                        address: string;
                        network: string;
                        player_id: string;
                        /** @description Token symbols credited at this address. */
                        tokens: string[];
                    };
                };
            };
            /** @description Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Caller IP not allowlisted or wrong wallet signer (`forbidden`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Known path, wrong method (`validation`, with an `Allow` header) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers or body arrived too slowly (`validation`) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 1 MiB (`validation`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not sent as `Content-Type: application/json` (`validation`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request headers too large (`validation`) */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (`internal`) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
