export * from './decision-catalog';
export * from './submit-answer';
