// Set an own, enumerable property even for keys like "__proto__", which plain assignment would swallow.
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
