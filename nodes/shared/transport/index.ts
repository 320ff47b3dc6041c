// The transport: `request` sends (credential, URL, retries, the sent-record), `envelope` reads the answer, `failures` words the error.
export type { ServiceRequest } from './failures';
export type { ServiceContext } from './request';
export { CREDENTIAL_TYPE, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, credentialAccount, credentialBaseUrl, serviceRequest } from './request';
