// Safety: what code decides about text from outside.
export * from './untrusted';
