/**
 * Use cases that more than one app runs (an app never imports another app):
 * read facts, ask the domain, write, as an app's own use cases do.
 */
export * from './return-lead/return-lead.usecase';
