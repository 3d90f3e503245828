/**
 * Timer jobs: work a service does on a timer, off any request. Each is a Nest
 * provider; the app (or module) that runs it lists it among its providers.
 */
export * from './partition-keeper';
export * from './consent-chainer';
