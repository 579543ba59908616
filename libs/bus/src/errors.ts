/**
 * Publish failed for a reason the caller should retry later (not connected, closed, not
 * confirmed in time, nacked). The outbox relay keeps the event and tries again.
 */
export class BusUnavailableError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'BusUnavailableError';
  }
}

/** The event itself is malformed: retrying will not help, the publisher has a bug. */
export class InvalidEnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEnvelopeError';
  }
}
