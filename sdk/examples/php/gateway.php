<?php
/**
 * Signed requests to the crypto payment gateway and webhook verification, plain PHP 8 (no extensions
 * beyond the defaults).
 *
 *   php gateway.php call POST /v1/cashier/init '{"external_order_id":"order-1"}'
 *       (GATEWAY_URL, GATEWAY_KEY_ID, GATEWAY_SECRET from the environment) prints "<status> <body>"
 *   php gateway.php verify <X-Webhook-Timestamp> <X-Webhook-Signature> < raw_body
 *       (GATEWAY_SECRET) prints "ok" or "refused <reason>"
 *   php gateway.php vectors request-signing-test-vectors.json webhook-test-vectors.json
 *
 * Keep the API secret on your backend, never in a browser.
 */

const TOLERANCE_SECONDS = 300;

/** The four signing headers: HMAC-SHA256 over METHOD, path?query, timestamp, nonce, SHA-256(body). */
function signed_headers(string $keyId, string $secret, string $method, string $target, string $body,
                        ?string $timestamp = null, ?string $nonce = null): array
{
    $timestamp ??= (string) time();
    $nonce ??= bin2hex(random_bytes(16)); // a fresh nonce per request, also per retry
    $canonical = implode("\n", [strtoupper($method), $target, $timestamp, $nonce, hash('sha256', $body)]);
    return [
        'X-Api-Key' => $keyId,
        'X-Timestamp' => $timestamp,
        'X-Nonce' => $nonce,
        'X-Signature' => hash_hmac('sha256', $canonical, $secret),
    ];
}

/**
 * Sends a signed request with a JSON body text; returns [HTTP status, decoded JSON body]. The signature
 * covers the exact bytes sent: encode once (json_encode) and pass that text.
 */
function call(string $baseUrl, string $keyId, string $secret, string $method, string $target, string $body = ''): array
{
    $headers = signed_headers($keyId, $secret, $method, $target, $body);
    if ($body !== '') {
        $headers['Content-Type'] = 'application/json';
    }
    $lines = [];
    foreach ($headers as $name => $value) {
        $lines[] = "$name: $value";
    }
    $context = stream_context_create(['http' => [
        'method' => $method,
        'header' => implode("\r\n", $lines),
        'content' => $body,
        'ignore_errors' => true, // 4xx and 5xx carry the error envelope
        'timeout' => 30,
    ]]);
    $response = file_get_contents($baseUrl . $target, false, $context);
    preg_match('/^HTTP\/\S+ (\d{3})/', $http_response_header[0] ?? '', $m);
    return [(int) ($m[1] ?? 0), json_decode($response, true)];
}

/** Checks a webhook against its raw bytes before parsing; returns null when valid, else a reason. */
function verify_webhook(string $rawBody, string $timestamp, string $signature, string $secret, ?int $now = null): ?string
{
    if (!ctype_digit($timestamp) || $signature === '') {
        return 'malformed_header';
    }
    if (abs(($now ?? time()) - (int) $timestamp) > TOLERANCE_SECONDS) {
        return 'timestamp_out_of_tolerance';
    }
    $expected = hash_hmac('sha256', $timestamp . "\n" . $rawBody, $secret);
    return hash_equals($expected, strtolower($signature)) ? null : 'signature_mismatch';
}

/** Every published vector: requests sign to the given signature, webhooks verify or are refused. */
function check_vectors(string $requestFile, string $webhookFile): int
{
    $requests = json_decode(file_get_contents($requestFile), true);
    $webhooks = json_decode(file_get_contents($webhookFile), true);
    foreach ($requests['vectors'] as $v) {
        $h = signed_headers($v['key_id'], $v['secret'], $v['method'], $v['target'], $v['body'], $v['timestamp'], $v['nonce']);
        if ($h['X-Signature'] !== $v['signature']) {
            throw new Exception("request vector {$v['name']}");
        }
    }
    foreach ($webhooks['vectors'] as $v) {
        $reason = verify_webhook($v['body'], $v['timestamp'], $v['signature'], $v['secret'], (int) $v['timestamp']);
        if ($reason !== null) {
            throw new Exception("webhook vector {$v['name']}: $reason");
        }
    }
    foreach ($webhooks['invalid'] as $v) {
        $reason = verify_webhook($v['body'] ?? '', $v['timestamp'], $v['signature'], $v['secret'], $v['now']);
        if ($reason !== $v['reason']) {
            throw new Exception("invalid webhook vector {$v['name']}: $reason");
        }
    }
    return count($requests['vectors']) + count($webhooks['vectors']) + count($webhooks['invalid']);
}

[$mode, $args] = [$argv[1], array_slice($argv, 2)];
if ($mode === 'call') {
    [$status, $body] = call(getenv('GATEWAY_URL'), getenv('GATEWAY_KEY_ID'), getenv('GATEWAY_SECRET'), $args[0], $args[1], $args[2] ?? '');
    echo $status, ' ', json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
} elseif ($mode === 'verify') {
    $reason = verify_webhook(file_get_contents('php://stdin'), $args[0], $args[1], getenv('GATEWAY_SECRET'));
    echo $reason === null ? "ok\n" : "refused $reason\n";
} elseif ($mode === 'vectors') {
    echo 'ok ', check_vectors($args[0], $args[1]), "\n";
}
