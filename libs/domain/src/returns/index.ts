export * from './returns';
export * from './statement';
