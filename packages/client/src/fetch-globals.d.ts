// The generated client names fetch's body type `BodyInit`, a global of the DOM
// library; Node's own fetch types (undici, through @types/node) have it as a
// module export only, and this project compiles without the DOM library.
import type { BodyInit as NodeBodyInit } from 'undici-types';

declare global {
  type BodyInit = NodeBodyInit;
}
