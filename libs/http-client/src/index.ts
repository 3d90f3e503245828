/**
 * JSON over HTTP to systems we do not trust (partner networks, schools'
 * systems), for the apps that call them: partner-adapter and delivery.
 */
export * from './post-json';
