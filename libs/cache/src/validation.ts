/*
 * Both implementations check arguments the same way so a caller bug shows up in the in-process cache (unit
 * tests, embedded mode) exactly as it would against Redis, instead of as a Redis syntax error in production.
 */

export function assertTtlSeconds(ttlSeconds: number): void {
  // Redis EX takes whole seconds > 0; a fraction or 0 would be a server error or a key that never expires.
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`ttlSeconds must be a whole number of seconds greater than 0, got ${ttlSeconds}`);
  }
}

export function assertVersion(version: number): void {
  // Digits only keeps `<version>|<value>` unambiguous and Lua's tonumber exact (doubles hold safe integers).
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new RangeError(`version must be a non-negative safe integer, got ${version}`);
  }
}
