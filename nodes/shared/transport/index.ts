/*
 * The transport, split by concern: `request` (the request, its URL and auth), `envelope` (how the
 * service frames answers), `failures` (the errors built from answers, redaction of the key),
 * `rootCauses` (why a request got no answer) and `retry` (what may be repeated, and the backoff).
 * Callers import from here.
 */
export type { AnswerShape, DataShape, Envelope } from './envelope';
export { redactSecret } from './failures';
export type { RequestTuning, ServiceContext, ServiceRequest } from './request';
export { CREDENTIAL_TYPE, DEFAULT_TIMEOUT_MS, credentialBaseUrl, normaliseBaseUrl, serviceRequest } from './request';
export type { RetryPolicy } from './retry';
export { DEFAULT_RETRY_POLICY, isRetryable, networkErrorCode, retryDelayMs } from './retry';
