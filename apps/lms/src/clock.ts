/** The current time. Injected wherever time decides an outcome, so tests can move it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
