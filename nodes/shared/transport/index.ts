// The transport: `request` sends (credential, URL, retries, the sent-record), `envelope` reads the answer, `failures` words the error.
export type { ServiceRequest } from './failures';
export type { ServiceContext } from './request';
export { isPlainObject } from './envelope';
export { InvalidInputError, refusedInputError } from './failures';
export { CREDENTIAL_TYPE, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, accountFingerprint, credentialBaseUrl, parseHttpUrl, serviceRequest } from './request';
