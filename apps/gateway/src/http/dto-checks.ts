import { Matches, ValidateIf } from 'class-validator';

/** Checked only when sent (a null is refused like any other wrong value). */
export const WhenSent = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

/** A SHA-256 as hex (the contract's hashed keys; upper case is accepted and lower-cased by the parsers). */
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
export const IsSha256Hex = () => Matches(SHA256_HEX, { message: '$property must be a lower-case hex SHA-256' });
