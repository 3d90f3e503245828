/**
 * The fixed person key secret of development and test, where the other
 * settings have defaults too. Production refuses to start without its own
 * (docs/security.md, "Person keys"). A file of its own, importing nothing,
 * so the test tiers' global set-up (which resolves no @lr/ path) can read it.
 */
export const DEVELOPMENT_PERSON_KEY_SECRET = 'lead-router development person key secret: not for production';
