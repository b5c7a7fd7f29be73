// Set an own, enumerable property even for keys like "__proto__", which plain assignment would swallow.
// Plain assignment otherwise: defineProperty on every key is several times slower, and so is serialising the result.
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
