/**
 * The words the contract, the messages and the rules share: answer codes and
 * statuses, lead kinds and IP sources, the result entry, why an offer is left
 * out. libs/contracts writes its messages in them (it imports them from here);
 * the domain imports nothing from libs/contracts.
 */
export * from './answers';
export * from './lead';
export * from './offers';
export * from './sealed-contact';
