/*
 * The transport: `request` sends (credential, URL, retries), `envelope` reads the answer, `failures`
 * builds the one error of a failed request, `retry` says what may be repeated and when.
 */
export type { RequestTuning, ServiceContext, ServiceRequest } from './request';
export { CREDENTIAL_TYPE, DEFAULT_TIMEOUT_MS, credentialAccount, credentialBaseUrl, serviceRequest } from './request';
export { DEFAULT_RETRY_POLICY } from './retry';
